// Bot update delivery (seed-api.md "Events" and "States and transitions"; decisions.md section 2;
// operator-api.md message.created and button.clicked): which bots a user's message reaches, the
// Update objects, getUpdates (offset, limit, long polls, conflicts, allowed_updates, 24 h),
// button presses and answerCallbackQuery, the webhook settings, signed deliveries in both payload
// formats, retries with backoff and Retry-After, order, expiry, metrics, and a restart that loses
// nothing. Time moves only on a FakeClock; the dispatcher runs one pass per tick().
// Every assert.ok carries a message: without one, Node re-parses the (one-line, transpiled)
// source to make one, which takes minutes and turns a failure into a hang.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { describeStoresOnFakeClock, dropSchema, FakeClock, startTestApp, type TestApp } from './helpers/app.js';
import type { App } from '../src/http/types.js';
import {
  assertSigned,
  botCall,
  botView,
  failed,
  grantListen,
  newBot,
  metric,
  nextWait,
  result,
  say,
  startReceiver,
  userView,
  type BotUser,
  type Chat,
  type Hit,
  type Message,
  type Receiver,
  type Reply,
} from './helpers/delivery.js';
import {
  applyEvents,
  createBot,
  createUsers,
  postEvents,
  uid,
  type BotCreds,
  type TestUser,
} from './helpers/factories.js';
import { webhookSecret } from '../src/modules/delivery/service.js';
import { storesUnderTest } from './helpers/stores.js';
import { messageNumber } from './helpers/message-numbers.js';
import { fakeInstance, FakeRedis } from './helpers/fake-redis.js';
import { localSharedState } from '../src/lib/shared-state.js';

const DAY_MS = 24 * 3600 * 1000;
const ASSISTANT = '1000000000000000000';
const BAD_KEY = 'You X-API-KEY is not available';
const TERMINATED = 'Conflict: terminated by other getUpdates request';
const WEBHOOK_ACTIVE =
  "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first";
const INSECURE = { WEBHOOK_ALLOW_INSECURE: '1' };
/** For tests that await a poll or a delivery: a regression fails them instead of hanging the run. */
const BOUNDED = { timeout: 20_000 };

/** The Message of a user's message as a bot receives it. */
const userMessage = (
  messageId: string,
  telegramMessageId: number,
  m: { from: BotUser; chat: Chat; kind?: string; text: string; mentions?: BotUser[]; date: number },
): Message => ({
  message_id: messageId,
  telegram_message_id: telegramMessageId,
  text: m.text,
  text_raw: m.text,
  kind: m.kind ?? 'text',
  mention_users: m.mentions ?? [],
  from: m.from,
  chat: m.chat,
  date: m.date,
  reply_markup: null,
});

const messageUpdate = (id: number, message: Message) => ({ id, update_id: id, message });

type Keyboard = { inline_keyboard: Record<string, string>[][] };

/** The bot sends `text` with an inline keyboard to `chatId`: the Message it gets back. */
const sendKeyboard = async (app: App, bot: BotCreds, chatId: string, text: string, keyboard: Keyboard) =>
  result(
    await botCall(app, 'sendMessage', bot.api_key, {
      chat_id: chatId,
      text,
      parse_mode: 'text',
      reply_markup: JSON.stringify(keyboard),
    }),
  ) as Message;

// ---------------------------------------------------------------------- rules, getUpdates, callbacks

await describeStoresOnFakeClock('bot updates: delivery rules, getUpdates, button presses', (t, clock) => {
  let alice: TestUser;
  let bob: TestUser;
  const group = uid('g');
  const groupName = 'Delivery testers';
  const now = () => Math.floor(clock.now() / 1000);
  const privateChat = (u: TestUser): Chat => ({ id: u.user_id, type: 'private', title: u.name });
  const groupChat: Chat = { id: group, type: 'group', title: groupName };
  const poll = (bot: BotCreds, params: Record<string, unknown> = {}, as: 'form' | 'json' = 'form') =>
    botCall(t().app, 'getUpdates', bot.api_key, params, as);
  const updates = async (bot: BotCreds, params: Record<string, unknown> = {}, what = '') =>
    result(await poll(bot, params), what) as unknown[];
  const joinGroup = (...ids: string[]) =>
    applyEvents(
      t().app,
      ids.map((user_id) => ({ type: 'group.member.joined', data: { group_id: group, user_id } })),
    );
  const makeBot = async (name: string) => newBot(t().app, name);
  /** alice's private message to the bot, and the Message the bot should get. */
  const dm = async (bot: BotCreds, text: string, from: TestUser = alice, kind = 'text') => {
    const said = await say(t().app, { from: from.user_id, to: bot.bot_user_id, text, kind });
    return userMessage(said.message_id, await messageNumber(t().services, said.message_id), {
      from: userView(from),
      chat: privateChat(from),
      kind,
      text,
      date: now(),
    });
  };

  it('builds users and a group', async () => {
    [alice, bob] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
    await applyEvents(t().app, [
      {
        type: 'group.upserted',
        data: { group_id: group, name: groupName, invite_url: `https://chat.example/${group}` },
      },
    ]);
    await joinGroup(alice.user_id, bob.user_id);
  });

  // ------------------------------------------------------------------ the delivery rules table

  interface Row {
    scene: 'private' | 'group';
    kind: string;
    mention: boolean;
    without: boolean;
    with: boolean;
  }
  // seed-api.md, Events, point 4: ordinary = text or command; every other kind is a variant.
  const TABLE: Row[] = [
    { scene: 'private', kind: 'text', mention: false, without: true, with: true },
    { scene: 'private', kind: 'command', mention: false, without: true, with: true },
    { scene: 'private', kind: 'image', mention: false, without: true, with: true },
    { scene: 'private', kind: 'market_card', mention: false, without: true, with: true },
    { scene: 'group', kind: 'text', mention: true, without: true, with: true },
    { scene: 'group', kind: 'command', mention: true, without: true, with: true },
    { scene: 'group', kind: 'text', mention: false, without: false, with: true },
    { scene: 'group', kind: 'command', mention: false, without: false, with: true },
    { scene: 'group', kind: 'image', mention: true, without: false, with: true },
    { scene: 'group', kind: 'card', mention: true, without: false, with: true },
    { scene: 'group', kind: 'video', mention: false, without: false, with: true },
    { scene: 'group', kind: 'market_card', mention: false, without: false, with: true },
  ];
  let ruled: BotCreds;
  const RULED = 'rules bot';

  /** Sends every row of the table to the bot and checks what it gets; returns the next Update id. */
  const runTable = async (bot: BotCreds, granted: boolean, firstId: number): Promise<number> => {
    let id = firstId;
    for (const row of TABLE) {
      const text = `${row.scene} ${row.kind}${row.mention ? ' @bot' : ''}`;
      const what = `${text}, ${granted ? 'with' : 'without'} the permission`;
      const mentions = row.mention ? [bob.user_id, bot.bot_user_id] : [];
      const said = await say(
        t().app,
        row.scene === 'private'
          ? { from: alice.user_id, to: bot.bot_user_id, kind: row.kind, text }
          : { from: alice.user_id, group, kind: row.kind, text, mentions },
      );
      const expected = userMessage(said.message_id, await messageNumber(t().services, said.message_id), {
        from: userView(alice),
        chat: row.scene === 'private' ? privateChat(alice) : groupChat,
        kind: row.kind,
        text,
        mentions: row.mention ? [userView(bob), botView(bot, RULED)] : [],
        date: now(),
      });
      const delivered = granted ? row.with : row.without;
      assert.deepEqual(await updates(bot, {}, what), delivered ? [messageUpdate(id, expected)] : [], what);
      if (delivered) id++;
    }
    return id;
  };

  it('without listen_group_messages: private messages and group ordinary messages that mention the bot', async () => {
    ruled = await makeBot(RULED);
    await joinGroup(ruled.bot_user_id);
    // Ids start at 1 and rise by one per delivered Update.
    assert.equal(await runTable(ruled, false, 1), 7);
  });

  it('with listen_group_messages (granted by the operator): every row is delivered', async () => {
    await grantListen(t().app, ruled.bot_user_id);
    assert.equal(await runTable(ruled, true, 7), 7 + TABLE.length);
  });

  it('a bot outside the group gets nothing, even mentioned and holding the permission; nor does one that left', async () => {
    const outside = await makeBot('outside bot');
    const leaving = await makeBot('leaving bot');
    await grantListen(t().app, outside.bot_user_id);
    await grantListen(t().app, leaving.bot_user_id);
    await joinGroup(leaving.bot_user_id);
    await applyEvents(t().app, [
      { type: 'group.member.left', data: { group_id: group, user_id: leaving.bot_user_id } },
    ]);
    const mentions = [outside.bot_user_id, leaving.bot_user_id];
    const said = await say(t().app, { from: alice.user_id, group, text: 'anyone?', mentions });
    assert.deepEqual(await updates(outside), []);
    assert.deepEqual(await updates(leaving), []);
    // The bot in the group (with the permission) does get it: the message itself was deliverable.
    const expected = userMessage(said.message_id, await messageNumber(t().services, said.message_id), {
      from: userView(alice),
      chat: groupChat,
      text: 'anyone?',
      mentions: [botView(outside, 'outside bot'), botView(leaving, 'leaving bot')],
      date: now(),
    });
    assert.deepEqual(await updates(ruled), [messageUpdate(7 + TABLE.length, expected)]);
  });

  it('the sending bot is not sent its own message; other bots are, by the same rules', async () => {
    const plain = await makeBot('plain bot');
    await joinGroup(plain.bot_user_id);
    const listening = ruled;
    let next = 8 + TABLE.length;
    // The listening bot writes, mentioning itself and the plain bot.
    const own = await say(t().app, {
      from: listening.bot_user_id,
      group,
      text: 'from the bot',
      mentions: [listening.bot_user_id, plain.bot_user_id],
    });
    assert.deepEqual(await updates(listening), [], 'not its own message, though it listens and is mentioned');
    assert.deepEqual(await updates(plain), [
      messageUpdate(
        1,
        userMessage(own.message_id, await messageNumber(t().services, own.message_id), {
          from: botView(listening, RULED),
          chat: groupChat,
          text: 'from the bot',
          mentions: [botView(listening, RULED), botView(plain, 'plain bot')],
          date: now(),
        }),
      ),
    ]);
    // The plain bot writes without mentions: only the listening bot receives it.
    const back = await say(t().app, { from: plain.bot_user_id, group, text: 'reply' });
    assert.deepEqual(await updates(plain), []);
    assert.deepEqual(await updates(listening), [
      messageUpdate(
        next++,
        userMessage(back.message_id, await messageNumber(t().services, back.message_id), {
          from: botView(plain, 'plain bot'),
          chat: groupChat,
          text: 'reply',
          date: now(),
        }),
      ),
    ]);
    assert.equal(next, 9 + TABLE.length);
  });

  it("private messages follow the bot's private_message_policy: following, friends, everyone", async () => {
    const shy = await makeBot('shy bot');
    const policy = (p: 'following' | 'friends' | 'everyone') =>
      t()
        .services.db.k.updateTable('bots')
        .set({ private_message_policy: p })
        .where('bot_user_id', '=', shy.bot_user_id)
        .execute();
    const follow = (follower: string, followed: string) =>
      applyEvents(t().app, [{ type: 'follow.created', data: { follower_id: follower, followed_id: followed } }]);
    let id = 1;

    await policy('following');
    await dm(shy, 'a1');
    assert.deepEqual(await updates(shy), [], 'the bot does not follow alice');
    await follow(alice.user_id, shy.bot_user_id);
    await dm(shy, 'a2');
    assert.deepEqual(await updates(shy), [], 'alice following the bot is not enough');
    await follow(shy.bot_user_id, alice.user_id);
    const a3 = await dm(shy, 'a3');
    assert.deepEqual(await updates(shy), [messageUpdate(id++, a3)]);
    await dm(shy, 'b1', bob);
    assert.deepEqual(await updates(shy), [], 'the bot does not follow bob');

    await policy('friends');
    const a4 = await dm(shy, 'a4');
    assert.deepEqual(await updates(shy), [messageUpdate(id++, a4)], 'alice and the bot are friends');
    await follow(shy.bot_user_id, bob.user_id);
    await dm(shy, 'b2', bob);
    assert.deepEqual(await updates(shy), [], 'bob does not follow the bot back');
    await follow(bob.user_id, shy.bot_user_id);
    const b3 = await dm(shy, 'b3', bob, 'image');
    assert.deepEqual(await updates(shy), [messageUpdate(id++, b3)]);

    await policy('everyone');
    const [carol] = (await createUsers(t().app, 1)) as [TestUser];
    const c1 = await dm(shy, 'c1', carol);
    assert.deepEqual(await updates(shy), [messageUpdate(id++, c1)]);
    assert.equal(id, 5);
  });

  // ------------------------------------------------------------------ getUpdates

  it('getUpdates without offset returns the updates and counts them confirmed', async () => {
    const bot = await makeBot('poller');
    const m1 = await dm(bot, 'one');
    const m2 = await dm(bot, 'two');
    assert.deepEqual(await updates(bot), [messageUpdate(1, m1), messageUpdate(2, m2)]);
    assert.deepEqual(await updates(bot), [], 'already confirmed');
    assert.deepEqual(await updates(bot, { offset: 0 }), [], 'offset 0 is the same as none');
    const m3 = await dm(bot, 'three');
    assert.deepEqual(await updates(bot, { offset: 0 }), [messageUpdate(3, m3)]);
    assert.deepEqual(await updates(bot), []);
  });

  it('getUpdates with offset returns updates again until a higher offset confirms them', async () => {
    const bot = await makeBot('offset poller');
    const m = [await dm(bot, 'one'), await dm(bot, 'two'), await dm(bot, 'three')];
    const all = m.map((x, i) => messageUpdate(i + 1, x));
    assert.deepEqual(await updates(bot, { offset: 1 }), all);
    assert.deepEqual(await updates(bot, { offset: 1 }), all, 'not confirmed: returned again');
    assert.deepEqual(result(await poll(bot, { offset: 2 }, 'json')), all.slice(1));
    assert.deepEqual(await updates(bot, { offset: 2 }), all.slice(1), 'update 1 stays confirmed');
    assert.deepEqual(result(await botCall(t().app, 'getUpdates?offset=3', bot.api_key)), all.slice(2), 'query');
    assert.deepEqual(await updates(bot, { offset: 4 }), []);
    assert.deepEqual(await updates(bot), [], 'all three were confirmed and deleted');
    const m4 = await dm(bot, 'four');
    assert.deepEqual(await updates(bot, { offset: 4 }), [messageUpdate(4, m4)]);
    assert.deepEqual(await updates(bot, { offset: 5 }), []);
  });

  it('getUpdates limit: the first N; above 100 is treated as 100 (the default)', async () => {
    const bot = await makeBot('limit poller');
    await applyEvents(
      t().app,
      Array.from({ length: 105 }, (_, i) => ({
        type: 'message.created',
        data: {
          message_id: uid('m'),
          chat_type: 'private',
          from_user_id: alice.user_id,
          to_user_id: bot.bot_user_id,
          kind: 'text',
          text: `n${i + 1}`,
        },
      })),
    );
    const ids = (list: unknown[]) => list.map((u) => (u as { id: number }).id);
    const texts = (list: unknown[]) => list.map((u) => (u as { message: Message }).message.text);
    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
    assert.deepEqual(ids(await updates(bot, { offset: 1, limit: 2 })), [1, 2]);
    assert.deepEqual(texts(await updates(bot, { offset: 1, limit: 3 })), ['n1', 'n2', 'n3']);
    assert.deepEqual(ids(await updates(bot, { offset: 1, limit: 101 })), range(1, 100));
    assert.deepEqual(ids(await updates(bot, { offset: 1, limit: 1000 })), range(1, 100));
    assert.deepEqual(ids(await updates(bot, { offset: 1 })), range(1, 100), 'default 100');
    assert.deepEqual(ids(await updates(bot, { offset: 101 })), range(101, 105));
    assert.deepEqual(ids(await updates(bot, { limit: 3 })), [101, 102, 103], 'confirms only what it sent');
    assert.deepEqual(ids(await updates(bot)), [104, 105]);
    assert.deepEqual(await updates(bot), []);
  });

  it('getUpdates with timeout > 0 is woken by an update arriving while it waits', BOUNDED, async () => {
    const bot = await makeBot('long poller');
    const waiting = nextWait(t().services.delivery);
    const held = poll(bot, { timeout: 5 }).then((r) => ({ r, at: performance.now() }));
    await waiting;
    const message = await dm(bot, 'wake up');
    const posted = performance.now();
    const { r, at } = await held;
    assert.deepEqual(result(r), [messageUpdate(1, message)]);
    assert.ok(at - posted < 1000, `answered ${Math.round(at - posted)} ms after the event, not at the 5 s timeout`);
    assert.deepEqual(await updates(bot), [], 'the woken poll confirmed it (no offset)');
    // With updates already waiting, a long poll answers at once.
    const ready = await dm(bot, 'ready');
    const started = performance.now();
    assert.deepEqual(await updates(bot, { timeout: 5 }), [messageUpdate(2, ready)]);
    assert.ok(performance.now() - started < 1000, 'answered at once');
  });

  it('getUpdates with timeout 1 and nothing arriving answers [] after the timeout', BOUNDED, async () => {
    const bot = await makeBot('patient poller');
    const started = performance.now();
    assert.deepEqual(await updates(bot, { timeout: 1 }), []);
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 950 && elapsed < 3000, `took ${Math.round(elapsed)} ms`);
  });

  it(
    'polls held together with one timeout end on their own: the woken at once, the others at the timeout',
    BOUNDED,
    async () => {
      // They share one timer (service.ts, Expiry): waking one must neither end nor strand the others.
      const [woken, ...others] = [
        await makeBot('shared timer a'),
        await makeBot('shared timer b'),
        await makeBot('shared timer c'),
      ];
      const started = performance.now();
      const hold = async (bot: BotCreds) => {
        const waiting = nextWait(t().services.delivery);
        const held = poll(bot, { timeout: 1 }).then((r) => ({ r, at: performance.now() }));
        await waiting;
        return { held };
      };
      const { held: first } = await hold(woken);
      const rest = [];
      for (const bot of others) rest.push((await hold(bot)).held);
      const message = await dm(woken, 'only you');
      const { r, at } = await first;
      assert.deepEqual(result(r), [messageUpdate(1, message)]);
      assert.ok(at - started < 900, `the woken poll answered after ${Math.round(at - started)} ms`);
      for (const [i, held] of rest.entries()) {
        const { r: empty, at: ended } = await held;
        assert.deepEqual(result(empty), [], `poll ${i + 2} answered empty`);
        const elapsed = ended - started;
        assert.ok(elapsed >= 950 && elapsed < 3000, `poll ${i + 2} took ${Math.round(elapsed)} ms`);
      }
      assert.equal(t().services.delivery.polling, 0, 'nothing is left held');
    },
  );

  it('a second concurrent getUpdates ends the first with 409', BOUNDED, async () => {
    const bot = await makeBot('contested poller');
    const waiting = nextWait(t().services.delivery);
    const first = poll(bot, { timeout: 5 }).then((r) => ({ r, at: performance.now() }));
    await waiting;
    const started = performance.now();
    assert.deepEqual(await updates(bot), [], 'the second call is answered normally');
    const { r, at } = await first;
    failed(r, 409, TERMINATED);
    assert.ok(at - started < 1000, 'the first poll ended at once');
    // The bot's updates now go to whichever poll holds it; nothing was lost.
    const m = await dm(bot, 'after');
    assert.deepEqual(await updates(bot), [messageUpdate(1, m)]);
  });

  it('allowed_updates filters the kinds returned (JSON text in a form, or a JSON array)', async () => {
    const bot = await makeBot('picky poller');
    await joinGroup(bot.bot_user_id);
    const keyboard = { inline_keyboard: [[{ text: 'Tap', callback_data: 'tap' }]] };
    const sent = await sendKeyboard(t().app, bot, alice.user_id, 'tap me', keyboard);
    let id = 1;
    const round = async () => {
      const callback_id = uid('cb');
      await applyEvents(t().app, [
        {
          type: 'button.clicked',
          data: { callback_id, message_id: sent.message_id, user_id: alice.user_id, data: 'tap' },
        },
      ]);
      const click = {
        id,
        update_id: id,
        callback_query: { id: callback_id, from: userView(alice), message: sent, data: 'tap' },
      };
      id++;
      const message = messageUpdate(id, await dm(bot, `text ${id}`));
      id++;
      return { click, message };
    };
    const r1 = await round();
    assert.deepEqual(await updates(bot, { allowed_updates: '["callback_query"]' }), [r1.click]);
    const r2 = await round();
    assert.deepEqual(result(await poll(bot, { allowed_updates: ['message'] }, 'json')), [r2.message]);
    // Unwanted kinds are confirmed too, so they do not come back later; [] means "not given".
    const r3 = await round();
    assert.deepEqual(await updates(bot, { allowed_updates: '[]' }), [r3.click, r3.message]);
    const r4 = await round();
    assert.deepEqual(await updates(bot, { allowed_updates: 'null', offset: r4.click.id }), [r4.click, r4.message]);
    assert.deepEqual(await updates(bot, { offset: id }), []);
  });

  it('allowed_updates names are read as Telegram reads them: any case, unknown ones ignored, none known is every kind', async () => {
    const bot = await makeBot('loose poller');
    const m1 = await dm(bot, 'one');
    assert.deepEqual(await updates(bot, { allowed_updates: '["Message","CALLBACK_QUERY"]' }), [messageUpdate(1, m1)]);
    const m2 = await dm(bot, 'two');
    assert.deepEqual(await updates(bot, { allowed_updates: '["messages"]' }), [messageUpdate(2, m2)]);
    assert.deepEqual(await updates(bot), []);
  });

  it('updates older than 24 hours are not returned', async () => {
    const bot = await makeBot('late poller');
    const old = await dm(bot, 'old');
    clock.advance(DAY_MS / 2);
    const young = await dm(bot, 'young');
    clock.advance(DAY_MS / 2);
    assert.deepEqual(await updates(bot, { offset: 1 }), [messageUpdate(1, old), messageUpdate(2, young)], '24 h');
    clock.advance(1);
    assert.deepEqual(await updates(bot, { offset: 1 }), [messageUpdate(2, young)], '24 h + 1 ms');
    clock.advance(DAY_MS / 2);
    assert.deepEqual(await updates(bot), []);
  });

  // ------------------------------------------------------------------ button presses

  it('a button.clicked on a bot message becomes a callback_query Update; answerCallbackQuery answers it once', async () => {
    const bot = await makeBot('button bot');
    const other = await makeBot('other bot');
    await joinGroup(bot.bot_user_id);
    const keyboard = {
      inline_keyboard: [
        [
          { text: 'Yes', callback_data: 'yes' },
          { text: 'No', callback_data: 'no' },
        ],
        [{ text: 'Docs', url: 'https://docs.example/' }],
      ],
    };
    const send = (chatId: string) => sendKeyboard(t().app, bot, chatId, 'Pick one', keyboard);
    const inPrivate = await send(alice.user_id);
    assert.deepEqual(inPrivate.reply_markup, keyboard);
    const inGroup = await send(group);
    const click = (callback_id: string, message_id: string, user: TestUser, data: string) =>
      applyEvents(t().app, [
        { type: 'button.clicked', data: { callback_id, message_id, user_id: user.user_id, data } },
      ]);
    const cb1 = uid('cb');
    const cb2 = uid('cb');
    await click(cb1, inPrivate.message_id, alice, 'yes');
    await click(cb2, inGroup.message_id, bob, 'no');
    assert.deepEqual(await updates(bot), [
      { id: 1, update_id: 1, callback_query: { id: cb1, from: userView(alice), message: inPrivate, data: 'yes' } },
      { id: 2, update_id: 2, callback_query: { id: cb2, from: userView(bob), message: inGroup, data: 'no' } },
    ]);
    assert.deepEqual(await updates(other), [], 'only the bot that sent the message');

    const answer = (path: string, creds: BotCreds, params: Record<string, unknown>, as: 'form' | 'json' = 'form') =>
      botCall(t().app, '', creds.api_key, params, as, path);
    const bad = 'Bad Request: query is too old or query ID is invalid';
    assert.equal(result(await answer('/openapi/bot/answerCallbackQuery', bot, { callback_query_id: cb1 })), true);
    failed(
      await answer('/openapi/bot/answerCallbackQuery', bot, { callback_query_id: cb1 }),
      400,
      'Bad Request: query was already answered',
    );
    failed(await answer('/openapi/answerCallbackQuery', other, { callback_query_id: cb2 }), 400, bad, 'not its own');
    assert.equal(
      result(
        await answer(
          '/openapi/answerCallbackQuery',
          bot,
          { callback_query_id: cb2, text: 'Noted', show_alert: true },
          'json',
        ),
      ),
      true,
    );
    failed(
      await answer('/openapi/answerCallbackQuery', bot, { callback_query_id: cb2 }),
      400,
      'Bad Request: query was already answered',
    );
    failed(await answer('/openapi/bot/answerCallbackQuery', bot, { callback_query_id: 'no-such-query' }), 400, bad);
    failed(await answer('/openapi/answerCallbackQuery', bot, { callback_query_id: 'no-such-query' }), 400, bad);
    failed(await answer('/openapi/answerCallbackQuery', bot, {}), 400, 'Bad Request: callback_query_id: required');
    const stored = await t()
      .services.db.k.selectFrom('callback_queries')
      .select(['callback_id', 'answer_text', 'show_alert'])
      .where('callback_id', 'in', [cb1, cb2])
      .orderBy('callback_id')
      .execute();
    assert.deepEqual(
      stored.sort((x, y) => (x.callback_id === cb1 ? -1 : y.callback_id === cb1 ? 1 : 0)),
      [
        { callback_id: cb1, answer_text: null, show_alert: 0 },
        { callback_id: cb2, answer_text: 'Noted', show_alert: 1 },
      ],
    );
    // A repeated press (same callback id) makes no second Update.
    const again = await t().app.inject({
      method: 'POST',
      url: '/internal/v1/events',
      headers: { authorization: 'Bearer test-admin-token-0123456789' },
      payload: {
        events: [
          {
            id: uid('evt'),
            type: 'button.clicked',
            data: { callback_id: cb1, message_id: inPrivate.message_id, user_id: alice.user_id, data: 'yes' },
          },
        ],
      },
    });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json<{ refused: unknown[] }>().refused.length, 1);
    assert.deepEqual(await updates(bot), []);
  });

  it('a press counts only on a button the message shows now, by a user in its chat (as Telegram)', async () => {
    const bot = await makeBot('strict buttons');
    await joinGroup(bot.bot_user_id);
    const [carol] = (await createUsers(t().app, 1)) as [TestUser];
    const keyboard = {
      inline_keyboard: [[{ text: 'Yes', callback_data: 'yes' }], [{ text: 'Docs', url: 'https://docs.example/' }]],
    };
    const inPrivate = await sendKeyboard(t().app, bot, alice.user_id, 'Pick', keyboard);
    const inGroup = await sendKeyboard(t().app, bot, group, 'Pick', keyboard);
    const plain = result(
      await botCall(t().app, 'sendMessage', bot.api_key, { chat_id: alice.user_id, text: 'no buttons' }),
    ) as Message;
    const press = async (message_id: string, user: TestUser, data: string) => {
      const id = uid('evt');
      const r = await postEvents(t().app, [
        { id, type: 'button.clicked', data: { callback_id: uid('cb'), message_id, user_id: user.user_id, data } },
      ]);
      assert.equal(r.status, 200);
      const refused = r.body.refused as { id: string; reason: string }[];
      return refused.length === 0 ? 'applied' : refused.map((x) => (x.id === id ? x.reason : '?')).join();
    };
    assert.equal(await press(plain.message_id, alice, 'yes'), 'no_keyboard');
    assert.equal(await press(inPrivate.message_id, alice, 'no'), 'unknown_button', 'data on no button');
    assert.equal(await press(inPrivate.message_id, alice, 'https://docs.example/'), 'unknown_button', 'a link');
    assert.equal(await press(inPrivate.message_id, bob, 'yes'), 'not_in_chat', 'not the private chat');
    assert.equal(await press(inGroup.message_id, carol, 'yes'), 'not_in_chat', 'not a member');
    assert.deepEqual(await updates(bot), [], 'no Update for a refused press');
    assert.equal(await press(inGroup.message_id, bob, 'yes'), 'applied');
    assert.equal(await press(inPrivate.message_id, alice, 'yes'), 'applied');
    // The keyboard now shown decides: an edit that swaps it retires the old buttons.
    const swapped = { inline_keyboard: [[{ text: 'Again', callback_data: 'again' }]] };
    result(
      await botCall(t().app, 'editMessageText', bot.api_key, {
        chat_id: alice.user_id,
        message_id: inPrivate.message_id,
        text: 'Pick again',
        reply_markup: JSON.stringify(swapped),
      }),
    );
    assert.equal(await press(inPrivate.message_id, alice, 'yes'), 'unknown_button', 'after the edit');
    assert.equal(await press(inPrivate.message_id, alice, 'again'), 'applied');
    assert.equal((await updates(bot)).length, 3);
  });

  // ------------------------------------------------------------------ webhook settings (no delivery here)

  it('setWebhook without WEBHOOK_ALLOW_INSECURE refuses http:// and private addresses; the bot keeps polling', async () => {
    const bot = await makeBot('careful bot');
    const refused = async (url: string, reason: string) => {
      failed(await botCall(t().app, 'setWebhook', bot.api_key, { url }), 400, `Bad Request: url: ${reason}`, url);
    };
    await refused(
      'http://bot.example/hook',
      'must start with https:// (set WEBHOOK_ALLOW_INSECURE=1 on the server to allow http:// in development)',
    );
    await refused(
      'http://203.0.113.7/hook',
      'must start with https:// (set WEBHOOK_ALLOW_INSECURE=1 on the server to allow http:// in development)',
    );
    for (const url of [
      'https://127.0.0.1/hook',
      'https://10.1.2.3/hook',
      'https://192.168.1.10/hook',
      'https://172.16.5.4/hook',
      'https://169.254.169.254/latest',
      'https://[::1]/hook',
      'https://[fd00::1]/hook',
      'https://198.18.0.1/hook',
      'https://[64:ff9b::a9fe:a9fe]/latest', // NAT64 of 169.254.169.254
      'https://[64:ff9b:1::7f00:1]/hook',
      'https://[2002:c0a8:10a::1]/hook', // 6to4 of 192.168.1.10
      'https://localhost/hook',
    ]) {
      await refused(url, 'resolves to a private address');
    }
    await refused('not a url', 'is not a valid URL');
    assert.deepEqual(result(await botCall(t().app, 'getWebhookInfo', bot.api_key)), {
      url: '',
      pending_update_count: 0,
      last_error_date: 0,
      last_error_message: '',
      max_connections: 1,
      webhook_secret: '',
    });
    const m = await dm(bot, 'still polling');
    assert.deepEqual(await updates(bot), [messageUpdate(1, m)]);
  });

  it('setWebhook keys: secret_token becomes the key, the same URL keeps it, a new URL gets a new one', async () => {
    const bot = await makeBot('hooked bot');
    const set = async (params: Record<string, unknown>) =>
      result(await botCall(t().app, 'setWebhook', bot.api_key, params)) as {
        url: string;
        webhook_key: string;
        payload_format: string;
      };
    const u1 = 'https://203.0.113.7/hook';
    const u2 = 'https://203.0.113.8/other';
    const secret = 'my_secret-token_0123456789';
    assert.deepEqual(await set({ url: u1, secret_token: secret }), {
      url: u1,
      webhook_key: secret,
      webhook_secret: webhookSecret(secret),
      payload_format: 'update',
    });
    assert.deepEqual(
      await set({ url: u1 }),
      { url: u1, webhook_key: secret, webhook_secret: webhookSecret(secret), payload_format: 'update' },
      'kept',
    );
    const second = await set({ url: u2 });
    assert.equal(second.url, u2);
    assert.notEqual(second.webhook_key, secret, 'a new URL issues a new key');
    assert.match(second.webhook_key, /^[A-Za-z0-9_-]{16,256}$/);
    assert.deepEqual(await set({ url: u2, payload_format: 'flat' }), { ...second, payload_format: 'flat' });
    assert.deepEqual(await set({ url: u2 }), { ...second, payload_format: 'flat' }, 'the format is kept too');
    const third = await set({ url: u1 });
    assert.notEqual(third.webhook_key, secret, 'back to an older URL: still a new key');
    assert.notEqual(third.webhook_key, second.webhook_key);
    assert.deepEqual(await set({ url: u1, secret_token: `${secret}X` }), {
      url: u1,
      webhook_key: `${secret}X`,
      webhook_secret: webhookSecret(`${secret}X`),
      payload_format: 'flat',
    });
    // Another bot's generated key differs.
    const otherBot = await makeBot('second hooked bot');
    const theirs = result(await botCall(t().app, 'setWebhook', otherBot.api_key, { url: u1 }, 'json')) as {
      webhook_key: string;
    };
    assert.match(theirs.webhook_key, /^[A-Za-z0-9_-]{16,256}$/);
    assert.notEqual(theirs.webhook_key, third.webhook_key);
    failed(
      await botCall(t().app, 'setWebhook', bot.api_key, { url: u1, secret_token: 'short' }),
      400,
      'Bad Request: secret_token: must match pattern "^[A-Za-z0-9_-]{16,256}$"',
    );
    failed(
      await botCall(t().app, 'setWebhook', bot.api_key, { url: u1, payload_format: 'xml' }),
      400,
      'Bad Request: payload_format: must be equal to constant',
    );
    failed(await botCall(t().app, 'setWebhook', bot.api_key, {}), 400, 'Bad Request: url: required');
  });

  it('while a webhook is set getUpdates is refused with 409 and updates queue; deleteWebhook switches back to polling', async () => {
    const bot = await makeBot('switching bot');
    const url = 'https://203.0.113.9/hook';
    const info = async () => result(await botCall(t().app, 'getWebhookInfo', bot.api_key));
    const m1 = await dm(bot, 'before');
    const { webhook_key: key } = result(await botCall(t().app, 'setWebhook', bot.api_key, { url })) as {
      webhook_key: string;
    };
    failed(await poll(bot), 409, WEBHOOK_ACTIVE);
    failed(await poll(bot, { offset: 1, timeout: 5 }), 409, WEBHOOK_ACTIVE, 'no waiting either');
    const m2 = await dm(bot, 'during');
    assert.deepEqual(await info(), {
      url,
      pending_update_count: 2,
      last_error_date: 0,
      last_error_message: '',
      max_connections: 1,
      webhook_secret: webhookSecret(key),
    });
    assert.equal(result(await botCall(t().app, 'deleteWebhook', bot.api_key)), true);
    assert.deepEqual(await info(), {
      url: '',
      pending_update_count: 2,
      last_error_date: 0,
      last_error_message: '',
      max_connections: 1,
      webhook_secret: '',
    });
    assert.deepEqual(await updates(bot), [messageUpdate(1, m1), messageUpdate(2, m2)], 'queued updates, by polling');

    // drop_pending_updates on setWebhook and on deleteWebhook.
    await dm(bot, 'dropped 1');
    result(await botCall(t().app, 'setWebhook', bot.api_key, { url, drop_pending_updates: true }));
    assert.equal(((await info()) as { pending_update_count: number }).pending_update_count, 0);
    await dm(bot, 'dropped 2');
    assert.equal(result(await botCall(t().app, 'deleteWebhook', bot.api_key, { drop_pending_updates: 'true' })), true);
    assert.deepEqual(await updates(bot), []);
    assert.equal(result(await botCall(t().app, 'deleteWebhook', bot.api_key)), true, 'again: still true');
    const m5 = await dm(bot, 'after');
    assert.deepEqual(await updates(bot), [messageUpdate(5, m5)], 'ids keep rising across modes');
  });

  it('a long poll held when the webhook is set ends with 409, saying setWebhook ended it', BOUNDED, async () => {
    const bot = await makeBot('interrupted poller');
    const waiting = nextWait(t().services.delivery);
    const held = poll(bot, { timeout: 5 });
    await waiting;
    result(await botCall(t().app, 'setWebhook', bot.api_key, { url: 'https://203.0.113.10/hook' }));
    failed(await held, 409, 'Conflict: terminated by setWebhook request');
  });

  it("a long poll held with a bot's App Key ends when the owner resets it (/revoke)", BOUNDED, async () => {
    const [owner] = (await createUsers(t().app, 1)) as [TestUser];
    const bot = await createBot(t().app, owner.user_id, 'revoked poller');
    const waiting = nextWait(t().services.delivery);
    const held = poll(bot, { timeout: 5 });
    await waiting;
    await say(t().app, { from: owner.user_id, to: ASSISTANT, text: '/revoke' });
    // Answered as a call with the old key is.
    failed(await held, 400, BAD_KEY, 'the held poll');
    failed(await poll(bot), 400, BAD_KEY, 'a new call with the old key');
    // What arrives afterwards is kept for the bot's next poll, with its new key.
    await dm(bot, 'for the new key');
    assert.equal((await t().services.delivery.webhookInfo(bot.bot_user_id)).pending_update_count, 1);
  });
});

// ---------------------------------------------------------------------- webhook deliveries

interface Info {
  url: string;
  pending_update_count: number;
  last_error_date: number;
  last_error_message: string;
  max_connections: number;
}

await describeStoresOnFakeClock(
  'bot updates: webhook deliveries',
  (t, hookClock) => {
    let alice: TestUser;
    let bob: TestUser;
    const group = uid('g');
    const groupName = 'Hook testers';
    const now = () => Math.floor(hookClock.now() / 1000);
    const tick = () => t().services.dispatcher.tick();
    const info = async (bot: BotCreds) => result(await botCall(t().app, 'getWebhookInfo', bot.api_key)) as Info;
    const setWebhook = async (bot: BotCreds, params: Record<string, unknown>) =>
      result(await botCall(t().app, 'setWebhook', bot.api_key, params)) as { webhook_key: string };
    /** Ends a test with the bot's queue empty, so other tests' ticks and counters see nothing of it. */
    const retire = async (bot: BotCreds) => {
      assert.equal(result(await botCall(t().app, 'deleteWebhook', bot.api_key, { drop_pending_updates: true })), true);
      assert.equal(await tick(), 0, 'nothing else is due');
    };
    /**
     * Runs `test` with a new bot and a receiver (its replies `script`ed, then `fallback`); the test
     * ends with the bot's queue empty, and the receiver is closed whatever happens.
     */
    const withHook = async (
      hook: { bot: string; fallback?: Reply; script?: Reply[] },
      test: (bot: BotCreds, receiver: Receiver) => Promise<void>,
    ) => {
      const bot = await newBot(t().app, hook.bot);
      const receiver = await startReceiver(hook.fallback);
      receiver.script(...(hook.script ?? []));
      try {
        await test(bot, receiver);
        await retire(bot);
      } finally {
        await receiver.close();
      }
    };
    const dm = async (bot: BotCreds, text: string) => {
      const said = await say(t().app, { from: alice.user_id, to: bot.bot_user_id, text });
      return userMessage(said.message_id, await messageNumber(t().services, said.message_id), {
        from: userView(alice),
        chat: { id: alice.user_id, type: 'private', title: alice.name },
        text,
        date: now(),
      });
    };
    const json = (hit: Hit | undefined): Record<string, unknown> => {
      assert.ok(hit !== undefined, 'a delivery arrived');
      return JSON.parse(hit.body) as Record<string, unknown>;
    };

    it('builds users and a group', async () => {
      [alice, bob] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
      await applyEvents(t().app, [
        {
          type: 'group.upserted',
          data: { group_id: group, name: groupName, invite_url: `https://chat.example/${group}` },
        },
        { type: 'group.member.joined', data: { group_id: group, user_id: alice.user_id } },
      ]);
    });

    it("delivers the 'update' format, signed, with X-API-KEY = the Webhook Key; once", () =>
      withHook({ bot: 'hook bot' }, async (bot, receiver) => {
        await applyEvents(t().app, [
          { type: 'group.member.joined', data: { group_id: group, user_id: bot.bot_user_id } },
        ]);
        const key = 'update_format_key_0123456789';
        assert.deepEqual(await setWebhook(bot, { url: receiver.url, secret_token: key }), {
          url: receiver.url,
          webhook_key: key,
          webhook_secret: webhookSecret(key),
          payload_format: 'update',
        });
        const message = await dm(bot, 'hello hook');
        assert.equal(await tick(), 1);
        assert.equal(receiver.hits.length, 1);
        const [hit] = receiver.hits;
        assert.ok(hit !== undefined, 'a delivery arrived');
        assert.equal(hit.method, 'POST');
        assert.equal(hit.path, '/hook');
        assert.equal(hit.headers['content-type'], 'application/json');
        assert.equal(hit.headers['x-api-key'], key);
        assert.equal(hit.headers['webhook-timestamp'], String(now()));
        assert.match(String(hit.headers['webhook-id']), /.+/);
        assertSigned(hit, key);
        assert.deepEqual(json(hit), {
          ...messageUpdate(1, message),
          from_user_id: alice.user_id,
          to_user_id: bot.bot_user_id,
          group_id: '',
          mention_users: '',
          language: '',
          message_raw: 'hello hook',
        });
        assert.equal(await tick(), 0, 'delivered once');
        assert.equal(receiver.hits.length, 1);

        // A group message mentioning two users.
        const said = await say(t().app, {
          from: alice.user_id,
          group,
          text: 'hi @bob @bot',
          mentions: [bob.user_id, bot.bot_user_id],
        });
        assert.equal(await tick(), 1);
        const groupHit = receiver.hits[1];
        assert.ok(groupHit !== undefined, 'a second delivery arrived');
        assert.notEqual(groupHit.headers['webhook-id'], hit.headers['webhook-id'], 'one id per update');
        assertSigned(groupHit, key);
        assert.deepEqual(json(groupHit), {
          ...messageUpdate(
            2,
            userMessage(said.message_id, await messageNumber(t().services, said.message_id), {
              from: userView(alice),
              chat: { id: group, type: 'group', title: groupName },
              text: 'hi @bob @bot',
              mentions: [userView(bob), botView(bot, 'hook bot')],
              date: now(),
            }),
          ),
          from_user_id: alice.user_id,
          to_user_id: bot.bot_user_id,
          group_id: group,
          mention_users: `${bob.user_id},${bot.bot_user_id}`,
          language: '',
          message_raw: 'hi @bob @bot',
        });
        assert.deepEqual(await info(bot), {
          url: receiver.url,
          pending_update_count: 0,
          last_error_date: 0,
          last_error_message: '',
          max_connections: 1,
          webhook_secret: webhookSecret(key),
        });
      }));

    it("delivers the 'flat' format: exactly the seven fields of the older callbacks", () =>
      withHook({ bot: 'flat bot' }, async (bot, receiver) => {
        await applyEvents(t().app, [
          { type: 'group.member.joined', data: { group_id: group, user_id: bot.bot_user_id } },
        ]);
        const { webhook_key: key } = await setWebhook(bot, { url: receiver.url, payload_format: 'flat' });
        await dm(bot, 'flat hello');
        await say(t().app, {
          from: alice.user_id,
          group,
          text: 'flat group',
          mentions: [bot.bot_user_id, bob.user_id],
        });
        assert.equal(await tick(), 1);
        assert.equal(await tick(), 1, 'the second one after the first');
        assert.equal(await tick(), 0);
        assert.equal(receiver.hits.length, 2);
        for (const hit of receiver.hits) {
          assert.equal(hit.headers['x-api-key'], key);
          assert.equal(hit.headers['content-type'], 'application/json');
          assertSigned(hit, key);
        }
        assert.deepEqual(
          receiver.hits.map((h) => json(h)),
          [
            {
              from_user_id: alice.user_id,
              to_user_id: bot.bot_user_id,
              language: '',
              group_id: '',
              mention_users: '',
              message: 'flat hello',
              message_raw: 'flat hello',
            },
            {
              from_user_id: alice.user_id,
              to_user_id: bot.bot_user_id,
              language: '',
              group_id: group,
              mention_users: `${bot.bot_user_id},${bob.user_id}`,
              message: 'flat group',
              message_raw: 'flat group',
            },
          ],
        );
      }));

    it('a receiver failing twice gets the update three times with the same webhook-id (1 s, then 2 s later), then never again', () =>
      withHook({ bot: 'retry bot', script: [500, 503] }, async (bot, receiver) => {
        const { webhook_key: key } = await setWebhook(bot, { url: receiver.url });
        const failedBefore = await metric(t().app, 'webhook_attempts_total{outcome="failed"}');
        const deliveredBefore = await metric(t().app, 'webhook_attempts_total{outcome="delivered"}');
        const message = await dm(bot, 'persist');
        const t0 = now();
        assert.equal(await tick(), 1, 'first attempt: 500');
        assert.deepEqual(await info(bot), {
          url: receiver.url,
          pending_update_count: 1,
          last_error_date: t0,
          last_error_message: 'HTTP 500',
          max_connections: 1,
          webhook_secret: webhookSecret(key),
        });
        assert.equal(await tick(), 0, 'not again at once');
        hookClock.advance(999);
        assert.equal(await tick(), 0, 'not before 1 s');
        hookClock.advance(1);
        assert.equal(await tick(), 1, 'second attempt after 1 s: 503');
        assert.deepEqual(await info(bot), {
          url: receiver.url,
          pending_update_count: 1,
          last_error_date: t0 + 1,
          last_error_message: 'HTTP 503',
          max_connections: 1,
          webhook_secret: webhookSecret(key),
        });
        hookClock.advance(1999);
        assert.equal(await tick(), 0, 'not before 2 s more');
        hookClock.advance(1);
        assert.equal(await tick(), 1, 'third attempt after 2 s: 200');
        hookClock.advance(3_600_000);
        assert.equal(await tick(), 0, 'never again');
        assert.equal(receiver.hits.length, 3);
        const body = JSON.stringify({
          ...messageUpdate(1, message),
          from_user_id: alice.user_id,
          to_user_id: bot.bot_user_id,
          group_id: '',
          mention_users: '',
          language: '',
          message_raw: 'persist',
        });
        const [first] = receiver.hits;
        assert.ok(first !== undefined, 'a delivery arrived');
        receiver.hits.forEach((hit, i) => {
          assert.equal(hit.headers['webhook-id'], first.headers['webhook-id'], `attempt ${i + 1}: same id`);
          assert.deepEqual(JSON.parse(hit.body), JSON.parse(body), `attempt ${i + 1}: same body`);
          assert.equal(hit.headers['x-api-key'], key);
          assertSigned(hit, key, `attempt ${i + 1}`);
        });
        assert.deepEqual(
          receiver.hits.map((h) => h.headers['webhook-timestamp']),
          [String(t0), String(t0 + 1), String(t0 + 3)],
        );
        assert.equal((await info(bot)).pending_update_count, 0);
        assert.equal(await metric(t().app, 'webhook_attempts_total{outcome="failed"}'), failedBefore + 2);
        assert.equal(await metric(t().app, 'webhook_attempts_total{outcome="delivered"}'), deliveredBefore + 1);
      }));

    it('updates arrive in order: the second is not sent before the first succeeded', () =>
      withHook({ bot: 'ordered bot', script: [500] }, async (bot, receiver) => {
        await setWebhook(bot, { url: receiver.url });
        await dm(bot, 'first');
        await dm(bot, 'second');
        assert.equal((await info(bot)).pending_update_count, 2);
        assert.equal(await tick(), 1, 'the first fails');
        assert.equal(await tick(), 0, 'the second waits behind it');
        hookClock.advance(1000);
        assert.equal(await tick(), 1, 'the first, again');
        assert.equal(await tick(), 1, 'then the second');
        assert.equal(await tick(), 0);
        const ids = receiver.hits.map((h) => (json(h) as { id: number }).id);
        assert.deepEqual(ids, [1, 1, 2]);
        assert.deepEqual(
          receiver.hits.map((h) => h.headers['webhook-id']),
          [
            receiver.hits[0]?.headers['webhook-id'],
            receiver.hits[0]?.headers['webhook-id'],
            receiver.hits[2]?.headers['webhook-id'],
          ],
        );
        assert.notEqual(receiver.hits[2]?.headers['webhook-id'], receiver.hits[0]?.headers['webhook-id']);
      }));

    it('backoff doubles from 1 s and is capped at 10 minutes', () =>
      withHook({ bot: 'backoff bot', fallback: 500 }, async (bot, receiver) => {
        await setWebhook(bot, { url: receiver.url });
        await dm(bot, 'again and again');
        assert.equal(await tick(), 1);
        const delays = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 600, 600, 600];
        for (const [i, seconds] of delays.entries()) {
          hookClock.advance(seconds * 1000 - 1);
          assert.equal(await tick(), 0, `retry ${i + 1} not before ${seconds} s`);
          hookClock.advance(1);
          assert.equal(await tick(), 1, `retry ${i + 1} after ${seconds} s`);
        }
        assert.equal(receiver.hits.length, delays.length + 1);
        assert.equal((await info(bot)).last_error_date, now());
      }));

    it('backoff counts from the end of the attempt: a receiver taking 3 s to answer 500 is retried 1 s after', () =>
      withHook(
        {
          bot: 'slow failing bot',
          script: [
            {
              status: 500,
              meanwhile: () => {
                hookClock.advance(3000);
              },
            },
          ],
        },
        async (bot, receiver) => {
          await setWebhook(bot, { url: receiver.url });
          await dm(bot, 'slowly');
          assert.equal(await tick(), 1, 'first attempt: 500 after 3 s');
          assert.equal(await tick(), 0, 'not again as soon as it ended');
          hookClock.advance(999);
          assert.equal(await tick(), 0, 'not before 1 s after the answer');
          hookClock.advance(1);
          assert.equal(await tick(), 1, 'second attempt 1 s after the answer');
          assert.equal(receiver.hits.length, 2);
        },
      ));

    it('Retry-After is honoured when it asks for longer than the backoff', () =>
      withHook(
        {
          bot: 'patient bot',
          script: [
            { status: 429, headers: { 'retry-after': '30' } },
            { status: 503, headers: { 'retry-after': '1' } },
          ],
        },
        async (bot, receiver) => {
          await setWebhook(bot, { url: receiver.url });
          await dm(bot, 'slow down');
          assert.equal(await tick(), 1, '429, Retry-After: 30');
          assert.equal((await info(bot)).last_error_message, 'HTTP 429');
          hookClock.advance(29_999);
          assert.equal(await tick(), 0, 'not before 30 s');
          hookClock.advance(1);
          assert.equal(await tick(), 1, '503, Retry-After: 1 (shorter than the 2 s backoff)');
          hookClock.advance(1_999);
          assert.equal(await tick(), 0, 'the backoff still applies');
          hookClock.advance(1);
          assert.equal(await tick(), 1, 'delivered');
          assert.equal(await tick(), 0);
          assert.equal(receiver.hits.length, 3);
          assert.equal((await info(bot)).pending_update_count, 0);
        },
      ));

    /** The bot's delivery log (the developer site's), oldest first. */
    const deliveries = (bot: BotCreds) =>
      t()
        .services.db.k.selectFrom('webhook_deliveries')
        .select(['url', 'attempt', 'status_code'])
        .where('bot_user_id', '=', bot.bot_user_id)
        .orderBy('seq')
        .execute();

    it('Retry-After longer than the backoff cap waits the cap (10 minutes), even past bigint', () =>
      withHook(
        { bot: 'huge retry-after bot', script: [{ status: 503, headers: { 'retry-after': '9'.repeat(20) } }] },
        async (bot, receiver) => {
          await setWebhook(bot, { url: receiver.url });
          await dm(bot, 'later, much later');
          assert.equal(await tick(), 1, '503, Retry-After: 20 nines');
          assert.equal((await info(bot)).last_error_message, 'HTTP 503', 'the failure is recorded');
          assert.deepEqual(await deliveries(bot), [{ url: receiver.url, attempt: 1, status_code: 503 }]);
          hookClock.advance(600_000 - 1);
          assert.equal(await tick(), 0, 'not before 10 minutes');
          hookClock.advance(1);
          assert.equal(await tick(), 1, 'delivered after 10 minutes');
          assert.equal(receiver.hits.length, 2);
        },
      ));

    it("a new Webhook URL gets the Updates at once, not after the old receiver's Retry-After", () =>
      withHook(
        { bot: 'moving bot', fallback: { status: 503, headers: { 'retry-after': '86400' } } },
        async (bot, old) => {
          await setWebhook(bot, { url: old.url });
          await dm(bot, 'follow me');
          assert.equal(await tick(), 1, '503, Retry-After: a day');
          assert.equal(await tick(), 0, 'the old receiver is waited for');
          const fresh = await startReceiver();
          try {
            await setWebhook(bot, { url: fresh.url });
            assert.equal(await tick(), 1, 'the new receiver on the next tick');
            assert.equal(fresh.hits.length, 1);
            assert.equal(old.hits.length, 1);
            // Its attempts count afresh.
            assert.deepEqual(await deliveries(bot), [
              { url: old.url, attempt: 1, status_code: 503 },
              { url: fresh.url, attempt: 1, status_code: 200 },
            ]);
            assert.equal((await info(bot)).pending_update_count, 0);
          } finally {
            await fresh.close();
          }
        },
      ));

    it('a refused connection is a failure too, shown in getWebhookInfo', async () => {
      const bot = await newBot(t().app, 'unreachable bot');
      const receiver = await startReceiver();
      const url = receiver.url;
      await receiver.close();
      const { webhook_key: key } = await setWebhook(bot, { url });
      await dm(bot, 'nobody home');
      const failedBefore = await metric(t().app, 'webhook_attempts_total{outcome="failed"}');
      assert.equal(await tick(), 1);
      assert.deepEqual(await info(bot), {
        url,
        pending_update_count: 1,
        last_error_date: now(),
        last_error_message: 'connection refused',
        max_connections: 1,
        webhook_secret: webhookSecret(key),
      });
      assert.equal(await metric(t().app, 'webhook_attempts_total{outcome="failed"}'), failedBefore + 1);
      await retire(bot);
    });

    it('an update still undelivered after 24 hours is dropped and counted', () =>
      withHook({ bot: 'expiring bot', fallback: 500 }, async (bot, receiver) => {
        await setWebhook(bot, { url: receiver.url });
        await dm(bot, 'too late');
        const dropped = await metric(t().app, 'updates_dropped_total');
        assert.equal(await tick(), 1);
        hookClock.advance(DAY_MS);
        assert.equal(await tick(), 1, 'at 24 h it is still tried');
        assert.equal((await info(bot)).pending_update_count, 1);
        assert.equal(await metric(t().app, 'updates_dropped_total'), dropped);
        hookClock.advance(1);
        assert.equal((await info(bot)).pending_update_count, 0, 'no longer pending');
        assert.equal(await tick(), 0, 'dropped, not tried');
        assert.equal(await metric(t().app, 'updates_dropped_total'), dropped + 1);
        hookClock.advance(DAY_MS);
        assert.equal(await tick(), 0);
        assert.equal(receiver.hits.length, 2);
        const rows = await t()
          .services.db.k.selectFrom('updates')
          .select('update_id')
          .where('bot_user_id', '=', bot.bot_user_id)
          .execute();
        assert.deepEqual(rows, []);
      }));

    it('a button press reaches the webhook as a callback_query Update', () =>
      withHook({ bot: 'hooked buttons' }, async (bot, receiver) => {
        const keyboard = { inline_keyboard: [[{ text: 'Go', callback_data: 'go' }]] };
        const sent = await sendKeyboard(t().app, bot, alice.user_id, 'Press', keyboard);
        const { webhook_key: key } = await setWebhook(bot, { url: receiver.url });
        const callback_id = uid('cb');
        await applyEvents(t().app, [
          {
            type: 'button.clicked',
            data: { callback_id, message_id: sent.message_id, user_id: alice.user_id, data: 'go' },
          },
        ]);
        assert.equal(await tick(), 1);
        const [hit] = receiver.hits;
        assert.ok(hit !== undefined, 'a delivery arrived');
        assertSigned(hit, key);
        const body = json(hit);
        assert.deepEqual(
          { id: body.id, update_id: body.update_id, callback_query: body.callback_query },
          {
            id: 1,
            update_id: 1,
            callback_query: { id: callback_id, from: userView(alice), message: sent, data: 'go' },
          },
        );
        assert.equal(body.message, undefined);
        assert.equal(
          result(
            await botCall(
              t().app,
              '',
              bot.api_key,
              { callback_query_id: callback_id },
              'form',
              '/openapi/answerCallbackQuery',
            ),
          ),
          true,
        );
      }));
  },
  { env: INSECURE },
);

// ---------------------------------------------------------------------- restart

for (const store of await storesUnderTest()) {
  await describe(`bot updates: webhook deliveries survive a restart [${store}]`, () => {
    it(
      'an update posted while the receiver fails is delivered by the next instance on the same store',
      BOUNDED,
      async () => {
        const restartClock = new FakeClock();
        const encryptionKey = randomBytes(32);
        const dir = mkdtempSync(join(tmpdir(), 'op-restart-'));
        const schema = `t_${randomBytes(6).toString('hex')}`;
        const options = {
          env: INSECURE,
          clock: restartClock,
          encryptionKey,
          ...(store === 'sqlite' ? { sqliteFile: join(dir, 'platform.db') } : { schema }),
        };
        const receiver = await startReceiver(500);
        let running: TestApp | undefined;
        try {
          const first = await startTestApp(store, options);
          running = first;
          const [owner, alice] = (await createUsers(first.app, 2)) as [TestUser, TestUser];
          const bot = await createBot(first.app, owner.user_id, 'durable bot');
          const { webhook_key: key } = result(
            await botCall(first.app, 'setWebhook', bot.api_key, { url: receiver.url }),
          ) as { webhook_key: string };
          // The dispatcher runs in the background, woken by the event's announcement.
          first.services.dispatcher.start();
          const said = await say(first.app, { from: alice.user_id, to: bot.bot_user_id, text: 'keep me' });
          await receiver.received(1);
          await first.services.dispatcher.stop();
          await first.close();
          running = undefined;
          assert.equal(receiver.hits.length, 1, 'one failed attempt before the shutdown');

          const failedAt = Math.floor(restartClock.now() / 1000);
          receiver.setFallback(200);
          restartClock.advance(60_000);
          const second = await startTestApp(store, options);
          running = second;
          second.services.dispatcher.start();
          const hits = await receiver.received(2);
          await second.services.dispatcher.stop();
          assert.equal(hits.length, 2);
          const [failedHit, deliveredHit] = hits as [Hit, Hit];
          assert.equal(deliveredHit.headers['webhook-id'], failedHit.headers['webhook-id']);
          assert.equal(deliveredHit.body, failedHit.body);
          assert.equal(deliveredHit.headers['x-api-key'], key, 'the key survived the restart');
          assertSigned(deliveredHit, key);
          const update = JSON.parse(deliveredHit.body) as { id: number; message: Message };
          assert.deepEqual(
            [update.id, update.message.message_id, update.message.text],
            [1, said.message_id, 'keep me'],
          );
          assert.deepEqual(result(await botCall(second.app, 'getWebhookInfo', bot.api_key)), {
            url: receiver.url,
            pending_update_count: 0,
            last_error_date: failedAt,
            last_error_message: 'HTTP 500',
            max_connections: 1,
            webhook_secret: webhookSecret(key),
          });
          assert.equal(await second.services.dispatcher.tick(), 0);
          assert.equal(receiver.hits.length, 2, 'delivered once');
        } finally {
          await running?.services.dispatcher.stop();
          await running?.close();
          await receiver.close();
          rmSync(dir, { recursive: true, force: true });
          if (store === 'postgres') await dropSchema(schema);
        }
      },
    );
  });
}

// ---------------------------------------------------------------------- Redis lost

await describe('bot updates: a poll held while Redis is lost [sqlite]', () => {
  it('is woken by an Update another instance wrote, from the store, without its announcement', BOUNDED, async () => {
    const encryptionKey = randomBytes(32);
    const dir = mkdtempSync(join(tmpdir(), 'op-cut-'));
    const options = { encryptionKey, sqliteFile: join(dir, 'platform.db') };
    // This instance's bus runs on a Redis (a fake) whose link is then lost; the other's is its own.
    const here = await fakeInstance(new FakeRedis(), 'here');
    const apps: TestApp[] = [];
    try {
      const cut = await startTestApp('sqlite', { ...options, shared: { ...localSharedState(), bus: here.bus } });
      apps.push(cut);
      const other = await startTestApp('sqlite', options);
      apps.push(other);
      const [alice] = (await createUsers(other.app, 1)) as [TestUser];
      const bot = await newBot(other.app, 'cut-off bot');
      const waiting = nextWait(cut.services.delivery);
      const held = botCall(cut.app, 'getUpdates', bot.api_key, { timeout: 15 });
      await waiting;
      here.link.lose();
      await say(other.app, { from: alice.user_id, to: bot.bot_user_id, text: 'unannounced' });
      // Found by the sweep of the store (about a second), well before the poll's 15 s.
      const updates = result(await held) as { message: { text: string } }[];
      assert.deepEqual(
        updates.map((u) => u.message.text),
        ['unannounced'],
      );
    } finally {
      for (const app of apps) await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
