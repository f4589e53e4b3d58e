// The Telegram-compatible bot API (telegram-api.md) driven by grammY, the Telegram client library:
// messages in through operator events, replies out (checked in the outbox), keyboards, callbacks,
// edits, chats and their administrators, commands, errors as GrammyError,
// long polling with bot.start().
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { it } from 'node:test';
import { Bot, GrammyError } from 'grammy';
import type { LanguageCode } from 'grammy/types';
import { adminHeaders, describeStores, outboxRows } from './helpers/app.js';
import { applyEvents, createUsers, uid, type BotCreds, type TestUser } from './helpers/factories.js';
import { newBot, nextWait, say } from './helpers/delivery.js';
import * as telegram from '../src/modules/telegram/repo.js';

interface OutboxItem {
  id: string;
  chat_type: string;
  to_user_id?: string;
  group_id?: string;
  from_user_id: string;
  object_name: string;
  content: string;
}

const failure = async (call: Promise<unknown>): Promise<GrammyError> => {
  try {
    await call;
  } catch (e) {
    assert.ok(e instanceof GrammyError, `expected a GrammyError, got ${String(e)}`);
    return e;
  }
  assert.fail('the call succeeded');
};

await describeStores('Telegram bot API through grammY', (t) => {
  let apiRoot = '';
  let alice: TestUser;
  let bob: TestUser;
  let creds: BotCreds;
  let bot: Bot;
  let token = '';
  const group = uid('g');

  const number = async (userId: string) => {
    const n = await telegram.telegramIdOf(t().services.db.k, userId);
    assert.ok(n !== undefined, `no number for ${userId}`);
    return n;
  };
  const groupNumber = async () => {
    const [g] = await telegram.groupsByIds(t().services.db.k, [group]);
    assert.ok(g !== undefined, 'group numbered');
    return g.telegram_id;
  };
  const outbox = async (): Promise<OutboxItem[]> => {
    const r = await t().app.inject({ method: 'GET', url: '/internal/v1/messages?limit=100', headers: adminHeaders });
    assert.equal(r.statusCode, 200, r.body);
    return r.json<{ messages: OutboxItem[] }>().messages;
  };

  it('starts listening and builds users, a group and a bot', async () => {
    await t().app.listen({ host: '127.0.0.1', port: 0 });
    apiRoot = `http://127.0.0.1:${(t().app.server.address() as AddressInfo).port}/telegram`;
    [alice, bob] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
    creds = await newBot(t().app, 'grammy bot');
    token = `${await number(creds.bot_user_id)}:${creds.api_key}`;
    bot = new Bot(token, { client: { apiRoot } });
    await applyEvents(t().app, [
      {
        type: 'group.upserted',
        data: {
          group_id: group,
          name: 'Telegram testers',
          invite_url: `https://chat.example/${group}`,
          owner_id: alice.user_id,
        },
      },
      ...[alice.user_id, creds.bot_user_id].map((user_id) => ({
        type: 'group.member.joined',
        data: { group_id: group, user_id },
      })),
    ]);
  });

  it('getMe: the bot as a Telegram User with a bot<id> username', async () => {
    const id = await number(creds.bot_user_id);
    assert.ok(id > 0, 'positive id');
    assert.deepEqual(await bot.api.getMe(), {
      id,
      is_bot: true,
      first_name: 'grammy bot',
      username: `bot${id}`,
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
    });
  });

  it('a private message comes in by getUpdates; the reply goes out to the outbox', async () => {
    const said = await say(t().app, { from: alice.user_id, to: creds.bot_user_id, text: '/start hello' });
    const updates = await bot.api.getUpdates({ timeout: 0 });
    assert.equal(updates.length, 1, JSON.stringify(updates));
    const u = updates[0];
    const m = u?.message;
    assert.ok(u !== undefined && m !== undefined, 'a message update');
    const aliceId = await number(alice.user_id);
    assert.equal(u.update_id, 1);
    assert.deepEqual(m.from, { id: aliceId, is_bot: false, first_name: alice.name });
    assert.deepEqual(m.chat, { id: aliceId, type: 'private', first_name: alice.name });
    assert.equal(m.text, '/start hello');
    assert.deepEqual(m.entities, [{ type: 'bot_command', offset: 0, length: 6 }]);
    assert.equal(typeof m.message_id, 'number', said.message_id);
    // Without an offset nothing is confirmed (Telegram's semantics).
    assert.equal((await bot.api.getUpdates()).length, 1, 'still pending');
    assert.deepEqual(await bot.api.getUpdates({ offset: 2 }), [], 'confirmed by offset');

    const sent = await bot.api.sendMessage(aliceId, 'hi <b>there</b> <a href="https://x.example/">link</a>', {
      parse_mode: 'HTML',
    });
    assert.equal(sent.text, 'hi there link');
    assert.deepEqual(sent.entities, [
      { type: 'bold', offset: 3, length: 5 },
      { type: 'text_link', offset: 9, length: 4, url: 'https://x.example/' },
    ]);
    assert.deepEqual(sent.chat, { id: aliceId, type: 'private', first_name: alice.name });
    const last = (await outbox()).filter((m) => m.from_user_id === creds.bot_user_id).at(-1);
    assert.ok(last !== undefined, 'the reply is in the outbox');
    assert.equal(last.to_user_id, alice.user_id);
    assert.equal(last.object_name, 'richtext');
  });

  it('MarkdownV2 and the platform string id as chat_id', async () => {
    const sent = await bot.api.sendMessage(alice.user_id, '*bold* _it_ plain\\!', { parse_mode: 'MarkdownV2' });
    assert.equal(sent.text, 'bold it plain!');
    assert.deepEqual(sent.entities, [
      { type: 'bold', offset: 0, length: 4 },
      { type: 'italic', offset: 5, length: 2 },
    ]);
  });

  it('MarkdownV2 ~strike~ and ||spoiler|| keep their text; escaped or in legacy Markdown the markers stay', async () => {
    const v2 = await bot.api.sendMessage(alice.user_id, '*bold* ~strike~ ||spoiler|| __u__ \\~ \\|\\| `a~b~`', {
      parse_mode: 'MarkdownV2',
    });
    assert.equal(v2.text, 'bold strike spoiler u ~ || a~b~');
    assert.deepEqual(v2.entities, [{ type: 'bold', offset: 0, length: 4 }]);
    const legacy = await bot.api.sendMessage(alice.user_id, '*bold* ~strike~ ||spoiler||', { parse_mode: 'Markdown' });
    assert.equal(legacy.text, 'bold ~strike~ ||spoiler||');
    assert.deepEqual(legacy.entities, [{ type: 'bold', offset: 0, length: 4 }]);
  });

  it('group messages in and a reply out; inline keyboard, callback query, answer and edit', async () => {
    const gid = await groupNumber();
    assert.ok(gid < 0, 'groups are negative');
    const sent = await bot.api.sendMessage(gid, 'pick one', {
      reply_markup: { inline_keyboard: [[{ text: 'Yes', callback_data: 'yes' }]] },
    });
    assert.deepEqual(sent.chat, { id: gid, type: 'supergroup', title: 'Telegram testers' });
    assert.deepEqual(sent.reply_markup, { inline_keyboard: [[{ text: 'Yes', callback_data: 'yes' }]] });
    const [row] = (await outbox()).filter((m) => m.group_id === group);
    assert.equal(row?.content, 'pick one');

    const native = (await outbox()).find((m) => m.content === 'pick one');
    const callback_id = uid('cb');
    await applyEvents(t().app, [
      { type: 'button.clicked', data: { callback_id, message_id: native?.id, user_id: alice.user_id, data: 'yes' } },
    ]);
    const updates = await bot.api.getUpdates({ offset: -1 });
    const q = updates[0]?.callback_query;
    assert.ok(q !== undefined, JSON.stringify(updates));
    assert.equal(q.id, callback_id);
    assert.equal(q.data, 'yes');
    assert.equal(q.message?.message_id, sent.message_id);
    assert.equal(await bot.api.answerCallbackQuery(q.id, { text: 'noted' }), true);
    const e = await failure(bot.api.answerCallbackQuery(q.id));
    assert.equal(e.error_code, 400);

    const edited = await bot.api.editMessageText(gid, sent.message_id, '<i>picked</i>', { parse_mode: 'HTML' });
    assert.equal(edited !== true && 'text' in edited && edited.text, 'picked');
    assert.ok(edited !== true && typeof edited.edit_date === 'number', 'edit_date');
    const marked = await bot.api.editMessageReplyMarkup(gid, sent.message_id, {
      reply_markup: { inline_keyboard: [] },
    });
    assert.ok(marked !== true && marked.reply_markup === undefined, 'keyboard removed');

    await say(t().app, {
      from: alice.user_id,
      group,
      text: `/help@bot${await number(creds.bot_user_id)}`,
      mentions: [creds.bot_user_id],
    });
    const groupMessage = (await bot.api.getUpdates({ offset: -1 }))[0]?.message;
    assert.ok(groupMessage !== undefined, 'a group message update');
    assert.equal(groupMessage.chat.id, gid);
    assert.equal(groupMessage.entities?.[0]?.type, 'bot_command');
  });

  it('getChat, getChatMember, getChatMemberCount', async () => {
    // Required by aiogram 3 and python-telegram-bot 22.1+ (Bot API 9.0): without it getChat fails there.
    const noGifts = {
      unlimited_gifts: false,
      limited_gifts: false,
      unique_gifts: false,
      premium_subscription: false,
      gifts_from_channels: false,
    };
    const gid = await groupNumber();
    const aliceId = await number(alice.user_id);
    assert.deepEqual(await bot.api.getChat(gid), {
      id: gid,
      type: 'supergroup',
      title: 'Telegram testers',
      accent_color_id: 0,
      max_reaction_count: 0,
      accepted_gift_types: noGifts,
    });
    assert.equal((await bot.api.getChatMember(gid, aliceId)).status, 'creator');
    assert.equal((await bot.api.getChatMember(gid, await number(creds.bot_user_id))).status, 'member');
    assert.equal((await bot.api.getChatMember(gid, await number(bob.user_id))).status, 'left');
    assert.equal(await bot.api.getChatMemberCount(gid), 2);
    assert.deepEqual(await bot.api.getChat(aliceId), {
      id: aliceId,
      type: 'private',
      first_name: alice.name,
      accent_color_id: 0,
      max_reaction_count: 0,
      accepted_gift_types: noGifts,
    });
  });

  it('getChatAdministrators', async () => {
    const gid = await groupNumber();
    const aliceId = await number(alice.user_id);
    // The bot is a plain member here: only the owner is listed.
    assert.deepEqual(await bot.api.getChatAdministrators(gid), [
      { status: 'creator', user: { id: aliceId, is_bot: false, first_name: alice.name }, is_anonymous: false },
    ]);
    const e = await failure(bot.api.getChatAdministrators(aliceId));
    assert.deepEqual(
      [e.error_code, e.description],
      [400, 'Bad Request: there are no administrators in the private chat'],
    );
  });

  it('setMyCommands / getMyCommands / deleteMyCommands per scope and language', async () => {
    const commands = [{ command: 'start', description: 'Start' }];
    assert.equal(await bot.api.setMyCommands(commands), true);
    assert.equal(
      await bot.api.setMyCommands([{ command: 'hilfe', description: 'Hilfe' }], { language_code: 'de' }),
      true,
    );
    assert.deepEqual(await bot.api.getMyCommands(), commands);
    assert.deepEqual(await bot.api.getMyCommands({ language_code: 'de' }), [
      { command: 'hilfe', description: 'Hilfe' },
    ]);
    assert.equal(await bot.api.deleteMyCommands(), true);
    assert.deepEqual(await bot.api.getMyCommands(), []);
  });

  it('a command scope names only a chat the bot reaches: a private chat by its sending rule, a group it is in', async () => {
    const commands = [{ command: 'start', description: 'Start' }];
    const shy = await newBot(t().app, 'following only');
    const shyBot = new Bot(`${await number(shy.bot_user_id)}:${shy.api_key}`, { client: { apiRoot } });
    await applyEvents(t().app, [
      { type: 'follow.created', data: { follower_id: shy.bot_user_id, followed_id: alice.user_id } },
    ]);
    await t()
      .services.db.k.updateTable('bots')
      .set({ private_message_policy: 'following' })
      .where('bot_user_id', '=', shy.bot_user_id)
      .execute();
    const [aliceId, bobId] = [await number(alice.user_id), await number(bob.user_id)];
    const refusal = async (call: Promise<unknown>) => {
      const e = await failure(call);
      return [e.error_code, e.description];
    };
    // It may write to alice, whom it follows, and not to bob (its sends answer 403 there).
    assert.equal(await shyBot.api.setMyCommands(commands, { scope: { type: 'chat', chat_id: aliceId } }), true);
    assert.deepEqual(await refusal(shyBot.api.setMyCommands(commands, { scope: { type: 'chat', chat_id: bobId } })), [
      400,
      'Bad Request: chat not found',
    ]);
    // As TDLib: only the chat scope names a private chat.
    assert.deepEqual(
      await refusal(shyBot.api.setMyCommands(commands, { scope: { type: 'chat_administrators', chat_id: aliceId } })),
      [400, "Bad Request: can't use specified scope in private chats"],
    );
    assert.deepEqual(
      await refusal(
        shyBot.api.setMyCommands(commands, { scope: { type: 'chat_member', chat_id: aliceId, user_id: aliceId } }),
      ),
      [400, "Bad Request: can't use specified scope in private chats"],
    );
    // A group it is not in.
    assert.deepEqual(
      await refusal(shyBot.api.setMyCommands(commands, { scope: { type: 'chat', chat_id: await groupNumber() } })),
      [403, 'Forbidden: bot is not a member of the group chat'],
    );
    // Once it stops following alice it cannot set her list, but it can still read and delete it.
    await applyEvents(t().app, [
      { type: 'follow.deleted', data: { follower_id: shy.bot_user_id, followed_id: alice.user_id } },
    ]);
    const aliceScope = { scope: { type: 'chat' as const, chat_id: aliceId } };
    assert.deepEqual(await refusal(shyBot.api.setMyCommands(commands, aliceScope)), [
      400,
      'Bad Request: chat not found',
    ]);
    assert.deepEqual(await shyBot.api.getMyCommands(aliceScope), commands);
    assert.equal(await shyBot.api.deleteMyCommands(aliceScope), true);
    assert.deepEqual(await shyBot.api.getMyCommands(aliceScope), []);
    // Once it leaves a group it can no longer read that group's list (403), but it can delete it.
    const groupScope = { scope: { type: 'chat' as const, chat_id: await groupNumber() } };
    const membership = { group_id: group, user_id: shy.bot_user_id };
    await applyEvents(t().app, [{ type: 'group.member.joined', data: membership }]);
    assert.equal(await shyBot.api.setMyCommands(commands, groupScope), true);
    await applyEvents(t().app, [{ type: 'group.member.left', data: membership }]);
    assert.deepEqual(await refusal(shyBot.api.getMyCommands(groupScope)), [
      403,
      'Forbidden: bot is not a member of the group chat',
    ]);
    assert.equal(await shyBot.api.deleteMyCommands(groupScope), true);
    await applyEvents(t().app, [{ type: 'group.member.joined', data: membership }]);
    assert.deepEqual(await shyBot.api.getMyCommands(groupScope), []);
  });

  it('a bot keeps at most 100 command lists: a new one past them is refused, a kept one replaced', async () => {
    const many = await newBot(t().app, 'many lists');
    const manyToken = `${await number(many.bot_user_id)}:${many.api_key}`;
    const manyBot = new Bot(manyToken, { client: { apiRoot } });
    // The four broad scopes in 25 languages: 100 lists.
    const scopes = ['default', 'all_private_chats', 'all_group_chats', 'all_chat_administrators'] as const;
    const languages: LanguageCode[] = [
      'en',
      'de',
      'fr',
      'es',
      'it',
      'pt',
      'ru',
      'uk',
      'pl',
      'nl',
      'sv',
      'no',
      'da',
      'fi',
      'cs',
      'sk',
      'hu',
      'ro',
      'bg',
      'el',
      'tr',
      'ar',
      'he',
      'ja',
      'ko',
    ];
    const list = (text: string) => [{ command: 'help', description: text }];
    for (const type of scopes)
      for (const language_code of languages)
        assert.equal(await manyBot.api.setMyCommands(list(type), { scope: { type }, language_code }), true);
    const aliceChat = { type: 'chat' as const, chat_id: await number(alice.user_id) };
    const r = await t().app.inject({
      method: 'POST',
      url: `/telegram/bot${manyToken}/setMyCommands`,
      payload: { commands: list('alice'), scope: aliceChat },
    });
    assert.deepEqual(
      [r.statusCode, r.json()],
      [
        400,
        {
          ok: false,
          error_code: 400,
          description:
            'Bad Request: too many command lists: a bot keeps at most 100 scope and language_code pairs; delete one with deleteMyCommands first',
        },
      ],
    );
    assert.deepEqual(await manyBot.api.getMyCommands({ scope: aliceChat }), []);
    // Replacing a list it keeps, and deleting one, still work; then there is room for one more.
    const english = { scope: { type: 'default' as const }, language_code: 'en' as const };
    assert.equal(await manyBot.api.setMyCommands(list('again'), english), true);
    assert.deepEqual(await manyBot.api.getMyCommands(english), list('again'));
    assert.equal(await manyBot.api.deleteMyCommands(english), true);
    assert.equal(await manyBot.api.setMyCommands(list('alice'), { scope: aliceChat }), true);
    assert.deepEqual(await manyBot.api.getMyCommands({ scope: aliceChat }), list('alice'));
  });

  it('errors surface as GrammyError with Telegram codes and descriptions', async () => {
    const wrong = new Bot(`${await number(creds.bot_user_id)}:wrong-key`, { client: { apiRoot } });
    let e = await failure(wrong.api.getMe());
    assert.deepEqual([e.error_code, e.description], [401, 'Unauthorized']);
    const other = await newBot(t().app, 'other');
    const swapped = new Bot(`${await number(other.bot_user_id)}:${creds.api_key}`, { client: { apiRoot } });
    e = await failure(swapped.api.getMe());
    assert.equal(e.error_code, 401, 'a bot id that does not own the key');

    const otherGroup = uid('g');
    await applyEvents(t().app, [
      {
        type: 'group.upserted',
        data: { group_id: otherGroup, name: 'elsewhere', invite_url: `https://chat.example/${otherGroup}` },
      },
    ]);
    e = await failure(bot.api.sendMessage(otherGroup, 'hi'));
    assert.deepEqual([e.error_code, e.description], [403, 'Forbidden: bot is not a member of the group chat']);
    e = await failure(bot.api.sendMessage(-1, 'hi'));
    assert.deepEqual([e.error_code, e.description], [400, 'Bad Request: chat not found']);
    e = await failure(bot.api.sendMessage(await number(alice.user_id), 'x', { parse_mode: 'Nope' as 'HTML' }));
    assert.deepEqual([e.error_code, e.description], [400, 'Bad Request: unsupported parse_mode']);
    e = await failure(bot.api.sendPhoto(await number(alice.user_id), 'http://insecure.example/a.png'));
    assert.equal(e.error_code, 400);

    const raw = await fetch(`${apiRoot}/bot${token}/noSuchMethod`);
    assert.equal(raw.status, 404);
    assert.deepEqual(await raw.json(), { ok: false, error_code: 404, description: 'Not Found' });
    const lower = await fetch(`${apiRoot}/bot${token}/getme`);
    assert.equal(lower.status, 200, 'method names are case-insensitive');
  });

  it('text of only whitespace is "message text is empty", as Telegram answers empty text; nothing is sent or edited', async () => {
    const gid = await groupNumber();
    const aliceId = await number(alice.user_id);
    const kept = await bot.api.sendMessage(gid, 'kept as it is');
    const before = await outboxRows(t());
    const empty = [400, 'Bad Request: message text is empty'];
    // Empty text was already refused so (the schema's minLength); whitespace alone is the same to Telegram.
    for (const text of ['', '   ', '\n\t', ' \r\n ']) {
      const what = JSON.stringify(text);
      let e = await failure(bot.api.sendMessage(aliceId, text));
      assert.deepEqual([e.error_code, e.description], empty, `sendMessage ${what}`);
      e = await failure(bot.api.sendMessage(gid, text, { parse_mode: 'HTML' }));
      assert.deepEqual([e.error_code, e.description], empty, `sendMessage HTML ${what}`);
      e = await failure(bot.api.editMessageText(gid, kept.message_id, text));
      assert.deepEqual([e.error_code, e.description], empty, `editMessageText ${what}`);
    }
    // The same as a form, as other libraries send it.
    const form = await fetch(`${apiRoot}/bot${token}/sendMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ chat_id: String(aliceId), text: '\t \t' }).toString(),
    });
    assert.equal(form.status, 400);
    assert.deepEqual(await form.json(), {
      ok: false,
      error_code: 400,
      description: 'Bad Request: message text is empty',
    });
    assert.equal(await outboxRows(t()), before, 'nothing sent');
    // The message keeps its text: an edit to it changes nothing.
    const same = await failure(bot.api.editMessageText(gid, kept.message_id, 'kept as it is'));
    assert.ok(same.description.startsWith('Bad Request: message is not modified'), same.description);
    // Whitespace around text is no refusal.
    assert.equal(typeof (await bot.api.sendMessage(aliceId, ' x\n')).message_id, 'number');
  });

  it('an empty chat_id is "chat_id is empty" on every method that takes one, as a missing one is; an empty user_id is "invalid user_id specified"', async () => {
    const gid = await groupNumber();
    const aliceId = await number(alice.user_id);
    const kept = await bot.api.sendMessage(gid, 'to edit');
    const before = await outboxRows(t());
    const calls: [string, Record<string, string>][] = [
      ['sendMessage', { text: 'x' }],
      ['sendPhoto', { photo: 'https://x.example/p.png', caption: 'x' }],
      ['editMessageText', { message_id: String(kept.message_id), text: 'x' }],
      ['editMessageReplyMarkup', { message_id: String(kept.message_id) }],
      ['sendChatAction', { action: 'typing' }],
      ['getChat', {}],
      ['getChatMember', { user_id: String(aliceId) }],
      ['getChatMemberCount', {}],
      ['getChatAdministrators', {}],
    ];
    const chatIdIsEmpty = { ok: false, error_code: 400, description: 'Bad Request: chat_id is empty' };
    // Every answer compared at once, so a failure shows each that differs.
    const answers: unknown[] = [];
    const expected: unknown[] = [];
    const answer = async (what: string, r: Response) => {
      answers.push({ what, status: r.status, body: await r.json() });
      expected.push({ what, status: 400, body: chatIdIsEmpty });
    };
    for (const [method, params] of calls) {
      const url = `${apiRoot}/bot${token}/${method}`;
      const query = new URLSearchParams({ chat_id: '', ...params }).toString();
      await answer(`${method} query`, await fetch(`${url}?${query}`));
      await answer(
        `${method} form`,
        await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: query,
        }),
      );
      await answer(
        `${method} json`,
        await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ chat_id: '', ...params }),
        }),
      );
      // Missing, as before.
      await answer(`${method} missing`, await fetch(`${url}?${new URLSearchParams(params).toString()}`));
    }
    assert.deepEqual(answers, expected);
    // Through grammY too.
    let e = await failure(bot.api.sendMessage('', 'x'));
    assert.deepEqual([e.error_code, e.description], [400, 'Bad Request: chat_id is empty']);
    e = await failure(bot.api.getChat(''));
    assert.deepEqual([e.error_code, e.description], [400, 'Bad Request: chat_id is empty']);

    // Telegram's server reads an empty user_id as none: 0, not a user.
    const invalidUser = [400, 'Bad Request: invalid user_id specified'];
    e = await failure(bot.api.getChatMember(gid, '' as unknown as number));
    assert.deepEqual([e.error_code, e.description], invalidUser, 'grammY');
    const member = await fetch(`${apiRoot}/bot${token}/getChatMember?chat_id=${gid}&user_id=`);
    assert.deepEqual(
      [member.status, await member.json()],
      [400, { ok: false, error_code: 400, description: 'Bad Request: invalid user_id specified' }],
      'query',
    );
    assert.equal(await outboxRows(t()), before, 'nothing sent');
  });

  it('409 when a second poller starts', async () => {
    const pending = await bot.api.getUpdates({ offset: -1 });
    const offset = (pending.at(-1)?.update_id ?? 0) + 1;
    assert.deepEqual(await bot.api.getUpdates({ offset }), [], 'queue drained');
    const first = bot.api.getUpdates({ offset, timeout: 5 });
    // The first poll is registered before its first read; wait until it holds.
    while (t().services.delivery.polling === 0) await new Promise((r) => setImmediate(r));
    const second = bot.api.getUpdates({ offset, timeout: 0 });
    const e = await failure(first);
    assert.deepEqual(
      [e.error_code, e.description],
      [409, 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running'],
    );
    await second;
  });

  it('409 "terminated by setWebhook request" when setWebhook ends a held poll', async () => {
    const other = await newBot(t().app, 'hooked poller');
    const hooked = new Bot(`${await number(other.bot_user_id)}:${other.api_key}`, { client: { apiRoot } });
    const waiting = nextWait(t().services.delivery);
    // Caught from the start: the poll fails while setWebhook is still being answered.
    const held = failure(hooked.api.getUpdates({ timeout: 5 }));
    await waiting;
    assert.equal(await hooked.api.setWebhook('https://203.0.113.10/hook'), true);
    const e = await held;
    assert.deepEqual([e.error_code, e.description], [409, 'Conflict: terminated by setWebhook request']);
  });

  it('401 Unauthorized when the App Key is reset while a poll is held', async () => {
    const other = await newBot(t().app, 'revoked poller');
    const revoked = new Bot(`${await number(other.bot_user_id)}:${other.api_key}`, { client: { apiRoot } });
    const waiting = nextWait(t().services.delivery);
    const held = failure(revoked.api.getUpdates({ timeout: 5 }));
    await waiting;
    await t().services.work.run((w) => t().services.apps.resetKeyIn(w, other.app_id));
    const e = await held;
    assert.deepEqual([e.error_code, e.description], [401, 'Unauthorized']);
  });

  it('long polling with bot.start(): echo', async () => {
    const aliceId = await number(alice.user_id);
    const echo = new Bot(token, { client: { apiRoot } });
    // The handler says when its reply was answered: the test waits on that, not on a timer.
    let replied: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => {
      replied = resolve;
    });
    echo.on('message:text', async (ctx) => {
      await ctx.reply(`echo: ${ctx.message.text}`);
      replied();
    });
    const started = new Promise<void>((resolve) => {
      void echo.start({
        timeout: 1,
        onStart: () => {
          resolve();
        },
      });
    });
    await started;
    await say(t().app, { from: alice.user_id, to: creds.bot_user_id, text: 'ping' });
    await answered;
    await echo.stop();
    const reply = (await outbox()).find((m) => m.content === 'echo: ping');
    assert.equal(reply?.to_user_id, alice.user_id);
    assert.ok(aliceId > 0, 'alice numbered');
  });
});
