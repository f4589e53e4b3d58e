// The bot methods of decisions.md section 2 (getMe, sendMessage, sendMessageToFans,
// editMessageText/editMessage): parameters as form, JSON or query string, the {ok, result, ...}
// envelope with errors on HTTP 200, the Message and User objects, inline keyboards, mentions,
// permissions and the rate-limited envelope.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeStoresOnFakeClock } from './helpers/app.js';
import {
  applyEvents,
  applyForPermission,
  approveApplication,
  createApp,
  createBot,
  createUsers,
  signedHeaders,
  uid,
  type BotCreds,
  type Creds,
  type TestUser,
} from './helpers/factories.js';
import { IMG, outboxSince, watchOutbox } from './helpers/outbox.js';
import { footImage, link, tag } from './helpers/richtext.js';
import type { App } from '../src/http/types.js';
import { messageNumber } from './helpers/message-numbers.js';
import { failed, userView, type Answer, type BotUser, type Message } from './helpers/delivery.js';

/** How the parameters travel: a form, a JSON body or the query string. */
type Params = { form: Record<string, string> } | { json: Record<string, unknown> } | { query: Record<string, string> };

async function call(app: App, method: string, params: Params, headers: Record<string, string>): Promise<Answer> {
  const url = `/openapi/bot/${method}`;
  const res =
    'form' in params
      ? await app.inject({
          method: 'POST',
          url,
          headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams(params.form).toString(),
        })
      : 'json' in params
        ? await app.inject({ method: 'POST', url, headers, payload: params.json })
        : await app.inject({ method: 'POST', url: `${url}?${new URLSearchParams(params.query).toString()}`, headers });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>(), headers: res.headers };
}

/** A successful envelope, exactly: returns its result. */
function result(r: Answer, what = ''): unknown {
  assert.equal(r.status, 200, what);
  assert.equal(r.body.ok, true, `${what} ${JSON.stringify(r.body)}`);
  assert.deepEqual(Object.keys(r.body).sort(), ['error_code', 'message', 'ok', 'result', 'success'], what);
  assert.equal(r.body.error_code, 0, what);
  assert.equal(r.body.message, 'success', what);
  assert.equal(r.body.success, true, what);
  return r.body.result;
}

const RICH = `Hello ${link('docs', 'https://docs.example/x')} and ${tag({
  uitag: 'font',
  text: 'red',
  color: '#f00',
})}.${footImage('')}`;
const RICH_PLAIN = 'Hello docs and red.';

await describeStoresOnFakeClock('bot methods (decisions.md section 2)', (t, clock) => {
  let owner: TestUser;
  let a: TestUser;
  let b: TestUser;
  let c: TestUser;
  let energizer: TestUser;
  let bot: BotCreds;
  let otherBot: BotCreds;
  let appCreds: Creds;
  const group = uid('g');
  const groupName = 'Bot testers';
  const strangerGroup = uid('g');

  const key = (creds: Creds) => ({ 'x-api-key': creds.api_key });
  const run = (method: string, params: Params, headers: Record<string, string> = key(bot)) =>
    call(t().app, method, params, headers);
  const watch = () => watchOutbox(t().app);
  const now = () => Math.floor(clock.now() / 1000);
  const iso = () => new Date(clock.now()).toISOString();
  const botView = (creds: BotCreds, name = 'test bot'): BotUser => ({
    user_id: creds.bot_user_id,
    name,
    address: creds.evm_address,
    pic: '',
    is_bot: true,
  });
  const message = (r: Answer, what = ''): Message => {
    const m = result(r, what) as Message;
    assert.ok(typeof m.message_id === 'string' && m.message_id.length > 0, what);
    return m;
  };
  const privateChat = (u: TestUser) => ({ id: u.user_id, type: 'private', title: u.name });
  const groupChat = { id: group, type: 'group', title: groupName };
  /** The Message of a plain text the bot sent to `chat` just now. */
  const botText = async (messageId: string, text: string, chat: Message['chat']): Promise<Message> => ({
    message_id: messageId,
    telegram_message_id: await messageNumber(t().services, messageId),
    text,
    text_raw: text,
    kind: 'text',
    mention_users: [],
    from: botView(bot),
    chat,
    date: now(),
    reply_markup: null,
  });

  it('builds users, bots, an app and a group', async () => {
    [owner, a, b, c] = (await createUsers(t().app, 4)) as [TestUser, TestUser, TestUser, TestUser];
    [energizer] = (await createUsers(t().app, 1, { level: 5 })) as [TestUser];
    bot = await createBot(t().app, owner.user_id);
    otherBot = await createBot(t().app, owner.user_id, 'other bot');
    appCreds = await createApp(t().app, owner.user_id);
    await applyEvents(t().app, [
      {
        type: 'group.upserted',
        data: { group_id: group, name: groupName, invite_url: `https://chat.example/${group}` },
      },
      {
        type: 'group.upserted',
        data: { group_id: strangerGroup, name: 's', invite_url: `https://chat.example/${strangerGroup}` },
      },
      { type: 'group.member.joined', data: { group_id: group, user_id: bot.bot_user_id } },
      { type: 'group.member.joined', data: { group_id: group, user_id: a.user_id } },
      { type: 'group.member.joined', data: { group_id: group, user_id: b.user_id } },
      { type: 'group.member.joined', data: { group_id: group, user_id: otherBot.bot_user_id } },
    ]);
  });

  // ------------------------------------------------------------------ getMe

  it('getMe answers the bot with its EVM address and level, by form, JSON, query or no parameters', async () => {
    const me = {
      user_id: bot.bot_user_id,
      name: 'test bot',
      address: bot.evm_address,
      pic: '',
      is_bot: true,
      level: 1,
      language_code: 'en',
    };
    for (const params of [{ form: {} }, { json: {} }, { query: {} }] as Params[]) {
      assert.deepEqual(result(await run('getMe', params)), me, JSON.stringify(params));
    }
    const res = await t().app.inject({ method: 'POST', url: '/openapi/bot/getMe', headers: key(bot) });
    assert.deepEqual(res.json(), { ok: true, result: me, error_code: 0, message: 'success', success: true });
    assert.deepEqual(
      result(await run('getMe', { form: {} }, signedHeaders(bot, { now: clock.now() }))),
      me,
      'signed headers',
    );
    await applyEvents(t().app, [
      { type: 'bot.energized', data: { bot_user_id: otherBot.bot_user_id, by_user_id: energizer.user_id } },
    ]);
    assert.deepEqual(result(await run('getMe', { form: {} }, key(otherBot))), {
      user_id: otherBot.bot_user_id,
      name: 'other bot',
      address: otherBot.evm_address,
      pic: '',
      is_bot: true,
      level: 2,
      language_code: 'en',
    });
  });

  it('keys: an app key is 403, an unknown or missing key 400, a wrong signature 401, all on HTTP 200', async () => {
    const w = await watch();
    const sendParams = { form: { chat_id: a.user_id, text: 'x' } };
    for (const method of ['getMe', 'sendMessage', 'sendMessageToFans', 'editMessageText', 'editMessage']) {
      failed(await run(method, sendParams, key(appCreds)), 403, 'this method needs the App Key of a bot', method);
      failed(
        await run(method, sendParams, { 'x-api-key': 'no-such-key' }),
        400,
        'You X-API-KEY is not available',
        method,
      );
      failed(await run(method, sendParams, {}), 400, 'You X-API-KEY is not available', method);
      failed(
        await run(method, sendParams, signedHeaders(bot, { now: clock.now(), secret: 'wrong' })),
        401,
        'signature mismatch',
        method,
      );
    }
    assert.deepEqual(await w.added(), []);
  });

  // ------------------------------------------------------------------ sendMessage

  it('sendMessage by form to a private chat answers the Message and stores it once', async () => {
    const w = await watch();
    const m = message(
      await run('sendMessage', {
        form: { chat_id: a.user_id, chat_type: 'private', text: 'hello a', parse_mode: 'text' },
      }),
    );
    assert.deepEqual(m, await botText(m.message_id, 'hello a', privateChat(a)));
    assert.deepEqual(await w.added(), [
      {
        id: m.message_id,
        chat_type: 'private',
        to_user_id: a.user_id,
        from_user_id: bot.bot_user_id,
        object_name: 'text',
        content: 'hello a',
        mention_user_ids: [],
        created_at: iso(),
      },
    ]);
  });

  it('sendMessage takes JSON and query-string parameters too', async () => {
    const w = await watch();
    const byJson = message(
      await run('sendMessage', { json: { chat_id: group, chat_type: 'group', text: 'json', parse_mode: 'text' } }),
    );
    assert.deepEqual(byJson, await botText(byJson.message_id, 'json', groupChat));
    const byQuery = message(
      await run('sendMessage', {
        query: { chat_id: b.user_id, chat_type: 'private', text: 'query', parse_mode: 'text' },
      }),
    );
    assert.deepEqual(byQuery.chat, privateChat(b));
    assert.equal(byQuery.text, 'query');
    // Query and body merge; the body wins.
    const merged = await t().app.inject({
      method: 'POST',
      url: `/openapi/bot/sendMessage?chat_id=${c.user_id}&text=from-query`,
      headers: { ...key(bot), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ text: 'from-body', parse_mode: 'text' }).toString(),
    });
    const mm = message({ status: merged.statusCode, body: merged.json(), headers: merged.headers });
    assert.deepEqual([mm.chat.id, mm.text], [c.user_id, 'from-body']);
    const rows = await w.added();
    assert.deepEqual(
      rows.map((r) => [r.id, r.chat_type, r.group_id ?? r.to_user_id, r.object_name, r.content]),
      [
        [byJson.message_id, 'group', group, 'text', 'json'],
        [byQuery.message_id, 'private', b.user_id, 'text', 'query'],
        [mm.message_id, 'private', c.user_id, 'text', 'from-body'],
      ],
    );
  });

  it('parse_mode: richtext (the default) gives plain text and the raw markup; text keeps the text as is', async () => {
    const w = await watch();
    const rich = message(await run('sendMessage', { form: { chat_id: a.user_id, text: RICH } }));
    assert.deepEqual([rich.text, rich.text_raw, rich.kind], [RICH_PLAIN, RICH, 'richtext']);
    const explicit = message(
      await run('sendMessage', { json: { chat_id: a.user_id, text: RICH, parse_mode: 'richtext' } }),
    );
    assert.deepEqual([explicit.text, explicit.text_raw, explicit.kind], [RICH_PLAIN, RICH, 'richtext']);
    const asText = message(await run('sendMessage', { form: { chat_id: a.user_id, text: RICH, parse_mode: 'text' } }));
    assert.deepEqual([asText.text, asText.text_raw, asText.kind], [RICH, RICH, 'text']);
    // Markup is not checked as text: an http:// "tag" is plain text there.
    const httpTag = tag({ uitag: 'a', text: 'x', href: 'http://insecure.example/' });
    const loose = message(
      await run('sendMessage', { form: { chat_id: a.user_id, text: httpTag, parse_mode: 'text' } }),
    );
    assert.equal(loose.text, httpTag);
    assert.deepEqual(
      (await w.added()).map((r) => [r.id, r.object_name, r.content]),
      [
        [rich.message_id, 'richtext', RICH],
        [explicit.message_id, 'richtext', RICH],
        [asText.message_id, 'text', RICH],
        [loose.message_id, 'text', httpTag],
      ],
    );
    failed(
      await run('sendMessage', { form: { chat_id: a.user_id, text: httpTag } }),
      400,
      'Bad Request: content: tag 1 (a): href must start with https://',
    );
    failed(
      await run('sendMessage', { form: { chat_id: a.user_id, text: '{"uitag":"blink","text":"x"}' } }),
      400,
      'Bad Request: content: tag 1: unknown uitag "blink"',
    );
    failed(
      await run('sendMessage', { form: { chat_id: a.user_id, text: `${IMG}picture` } }),
      403,
      'image sending requires level 2',
    );
    failed(
      await run('sendMessage', { form: { chat_id: group, text: `${IMG}picture` } }),
      403,
      'image sending requires level 2',
    );
    // The energized bot (level 2) may.
    const pic = message(await run('sendMessage', { form: { chat_id: group, text: `${IMG}picture` } }, key(otherBot)));
    assert.deepEqual([pic.text, pic.kind], ['picture', 'richtext']);
    assert.deepEqual(
      (await w.added()).map((r) => r.id),
      [pic.message_id],
    );
  });

  it('reply_markup: JSON text in a form field, an object in JSON; url, u_r_l and callback_data; null and [] mean none', async () => {
    const w = await watch();
    const keyboard = {
      inline_keyboard: [
        [
          { text: 'Open', url: 'https://site.example/a' },
          { text: 'Alt', u_r_l: 'https://site.example/b' },
        ],
        [{ text: 'Press', callback_data: 'p1', sub_text: 'sub', sub_text_color: '#ff0000' }],
      ],
    };
    const stored = {
      inline_keyboard: [
        [
          { text: 'Open', url: 'https://site.example/a' },
          { text: 'Alt', url: 'https://site.example/b' },
        ],
        [{ text: 'Press', callback_data: 'p1', sub_text: 'sub', sub_text_color: '#ff0000' }],
      ],
    };
    const byForm = message(
      await run('sendMessage', { form: { chat_id: a.user_id, text: 'k', reply_markup: JSON.stringify(keyboard) } }),
    );
    assert.deepEqual(byForm.reply_markup, stored);
    const byJson = message(
      await run('sendMessage', { json: { chat_id: a.user_id, text: 'k', reply_markup: keyboard } }),
    );
    assert.deepEqual(byJson.reply_markup, stored);
    const byJsonText = message(
      await run('sendMessage', { json: { chat_id: a.user_id, text: 'k', reply_markup: JSON.stringify(keyboard) } }),
    );
    assert.deepEqual(byJsonText.reply_markup, stored);
    for (const none of ['null', '[]', '', ' null ']) {
      const m = message(
        await run('sendMessage', { form: { chat_id: a.user_id, text: 'k', reply_markup: none } }),
        none,
      );
      assert.equal(m.reply_markup, null, JSON.stringify(none));
    }
    for (const none of [null, []]) {
      const m = message(await run('sendMessage', { json: { chat_id: a.user_id, text: 'k', reply_markup: none } }));
      assert.equal(m.reply_markup, null, JSON.stringify(none));
    }
    assert.equal((await w.added()).length, 9);
    const bad: [string, string][] = [
      [
        JSON.stringify({ inline_keyboard: [[{ text: 'x', url: 'http://site.example/' }]] }),
        'Bad Request: reply_markup: button links must start with https://',
      ],
      [
        JSON.stringify({ inline_keyboard: [[{ text: 'x', u_r_l: 'http://site.example/' }]] }),
        'Bad Request: reply_markup: button links must start with https://',
      ],
      [
        JSON.stringify({ inline_keyboard: [[{ text: 'x', login_url: 'http://site.example/' }]] }),
        'Bad Request: reply_markup: button links must start with https://',
      ],
      ['{"inline_keyboard": [[', 'Bad Request: reply_markup: malformed JSON'],
      [
        JSON.stringify({ inline_keyboard: [[{ url: 'https://site.example/' }]] }),
        'Bad Request: reply_markup: expected {"inline_keyboard": [[{"text": ...}]]}',
      ],
      [JSON.stringify({ keyboard: [] }), 'Bad Request: reply_markup: expected {"inline_keyboard": [[{"text": ...}]]}'],
    ];
    for (const [markup, msg] of bad) {
      failed(
        await run('sendMessage', { form: { chat_id: a.user_id, text: 'k', reply_markup: markup } }),
        400,
        msg,
        markup,
      );
    }
    failed(
      await run('sendMessage', {
        json: {
          chat_id: a.user_id,
          text: 'k',
          reply_markup: { inline_keyboard: [[{ text: 'x', url: 'http://s.example' }]] },
        },
      }),
      400,
      'Bad Request: reply_markup: button links must start with https://',
    );
    assert.deepEqual(await w.added(), []);
  });

  it('mentions: mention_ids as JSON text, mention_type 1 mentions every member, mention_users always an array', async () => {
    const w = await watch();
    const some = message(
      await run('sendMessage', {
        form: { chat_id: group, text: 'hi', mention_type: '2', mention_ids: JSON.stringify([b.user_id, a.user_id]) },
      }),
    );
    assert.deepEqual(some.mention_users, [userView(b), userView(a)]);
    assert.deepEqual(some.chat, groupChat);
    const noType = message(
      await run('sendMessage', { json: { chat_id: group, text: 'hi', mention_ids: [a.user_id] } }),
    );
    assert.deepEqual(noType.mention_users, [userView(a)]);
    const all = message(await run('sendMessage', { form: { chat_id: group, text: 'all', mention_type: '1' } }));
    const members = [botView(bot), userView(a), userView(b), botView(otherBot, 'other bot')];
    assert.deepEqual(all.mention_users, members);
    const none = message(await run('sendMessage', { form: { chat_id: group, text: 'none', mention_ids: '[]' } }));
    assert.deepEqual(none.mention_users, []);
    const nullIds = message(await run('sendMessage', { form: { chat_id: group, text: 'null', mention_ids: 'null' } }));
    assert.deepEqual(nullIds.mention_users, []);
    const jsonNull = message(await run('sendMessage', { json: { chat_id: group, text: 'j', mention_ids: null } }));
    assert.deepEqual(jsonNull.mention_users, []);
    const privateAll = message(
      await run('sendMessage', { form: { chat_id: a.user_id, text: 'p', mention_type: '1' } }),
    );
    assert.deepEqual(privateAll.mention_users, []);
    assert.deepEqual(
      (await w.added()).map((r) => [r.id, r.mention_user_ids]),
      [
        [some.message_id, [b.user_id, a.user_id]],
        [noType.message_id, [a.user_id]],
        [all.message_id, members.map((u) => u.user_id)],
        [none.message_id, []],
        [nullIds.message_id, []],
        [jsonNull.message_id, []],
        [privateAll.message_id, []],
      ],
    );
    failed(
      await run('sendMessage', { form: { chat_id: group, text: 'x', mention_ids: JSON.stringify(['nobody']) } }),
      400,
      'Bad Request: mention: unknown user',
    );
    failed(
      await run('sendMessage', { form: { chat_id: group, text: 'x', mention_ids: 'a,b' } }),
      400,
      'Bad Request: mention_ids: malformed JSON',
    );
    failed(
      await run('sendMessage', { form: { chat_id: group, text: 'x', mention_type: '3' } }),
      400,
      'Bad Request: mention_type: must be equal to constant',
    );
    assert.deepEqual(await w.added(), []);
  });

  it('chat_type omitted: a group when a group has that id, else a private chat', async () => {
    const w = await watch();
    const toGroup = message(await run('sendMessage', { form: { chat_id: group, text: 'g' } }));
    assert.deepEqual(toGroup.chat, groupChat);
    const toUser = message(await run('sendMessage', { form: { chat_id: c.user_id, text: 'u' } }));
    assert.deepEqual(toUser.chat, privateChat(c));
    assert.deepEqual(
      (await w.added()).map((r) => [r.chat_type, r.group_id ?? r.to_user_id]),
      [
        ['group', group],
        ['private', c.user_id],
      ],
    );
    // Told it is private, a group id names no user.
    failed(
      await run('sendMessage', { form: { chat_id: group, chat_type: 'private', text: 'x' } }),
      404,
      'unknown recipient',
    );
    failed(
      await run('sendMessage', { form: { chat_id: 'nobody', chat_type: 'group', text: 'x' } }),
      404,
      'unknown group',
    );
    failed(await run('sendMessage', { form: { chat_id: 'nobody', text: 'x' } }), 404, 'unknown recipient');
    failed(
      await run('sendMessage', { form: { chat_id: strangerGroup, text: 'x' } }),
      403,
      'the sender is not a member of this group',
    );
    assert.deepEqual(await w.added(), []);
  });

  it('bad parameters answer error_code 400 "Bad Request: ..." on HTTP 200 and store nothing', async () => {
    const w = await watch();
    const cases: [Params, string][] = [
      [{ form: { text: 'x' } }, 'Bad Request: chat_id: required'],
      [{ form: { chat_id: a.user_id } }, 'Bad Request: text: required'],
      [{ form: { chat_id: a.user_id, text: '' } }, 'Bad Request: text: required'],
      [
        { form: { chat_id: a.user_id, text: 'x'.repeat(5001) } },
        'Bad Request: text: must NOT have more than 5000 characters',
      ],
      [
        { json: { chat_id: a.user_id, text: 'x', parse_mode: 'bbcode' } },
        'Bad Request: parse_mode: must be one of text, richtext, HTML, Markdown, MarkdownV2, image, video, file',
      ],
      [
        { form: { chat_id: a.user_id, text: 'x', chat_type: 'channel' } },
        'Bad Request: chat_type: must be equal to constant',
      ],
      [{ json: { chat_id: a.user_id, text: { t: 'x' } } }, 'Bad Request: text: must be string'],
      [{ form: { chat_id: '', text: 'x' } }, 'Bad Request: chat_id: must NOT have fewer than 1 characters'],
    ];
    for (const [params, msg] of cases) failed(await run('sendMessage', params), 400, msg, JSON.stringify(params));
    const big = await run('sendMessage', { json: { chat_id: a.user_id, text: 'x'.repeat(70 * 1024) } });
    failed(big, 413, 'request body too large');
    const malformed = await t().app.inject({
      method: 'POST',
      url: '/openapi/bot/sendMessage',
      headers: { ...key(bot), 'content-type': 'application/json' },
      payload: '{"chat_id":',
    });
    assert.equal(malformed.statusCode, 200);
    assert.deepEqual(malformed.json(), {
      ok: false,
      result: null,
      error_code: 400,
      message: 'Bad Request: body: malformed JSON',
      success: false,
    });
    assert.deepEqual(await w.added(), []);
  });

  it('Idempotency-Key: sendMessage repeated answers the same message_id and stores one row', async () => {
    const w = await watch();
    const k = uid('idem');
    const params = { form: { chat_id: a.user_id, text: 'once', parse_mode: 'text' } };
    const first = await run('sendMessage', params, { ...key(bot), 'idempotency-key': k });
    const m1 = message(first);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const second = await run('sendMessage', params, { ...key(bot), 'idempotency-key': k });
    assert.deepEqual(message(second), m1);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    const other = message(await run('sendMessage', params, { ...key(bot), 'idempotency-key': uid('idem') }));
    assert.notEqual(other.message_id, m1.message_id);
    assert.deepEqual(
      (await w.added()).map((r) => r.id),
      [m1.message_id, other.message_id],
    );
    // Concurrent repeats: one message, one id.
    const k3 = uid('idem');
    const racing = await Promise.all(
      Array.from({ length: 5 }, () => run('sendMessage', params, { ...key(bot), 'idempotency-key': k3 })),
    );
    const ids = new Set(racing.map((r) => message(r).message_id));
    assert.equal(ids.size, 1);
    assert.deepEqual(
      (await w.added()).map((r) => r.id),
      [...ids],
    );
    clock.advance(24 * 3600 * 1000 + 1);
    const later = message(await run('sendMessage', params, { ...key(bot), 'idempotency-key': k }));
    assert.notEqual(later.message_id, m1.message_id, 'after 24 h the key performs again');
    assert.deepEqual(
      (await w.added()).map((r) => r.id),
      [later.message_id],
    );
  });

  it('Idempotency-Key: a repeat after the message was edited answers the message as first sent', async () => {
    const k = uid('idem');
    const params = { form: { chat_id: a.user_id, text: 'as sent', parse_mode: 'text' } };
    const first = message(await run('sendMessage', params, { ...key(bot), 'idempotency-key': k }));
    clock.advance(5000);
    const edit = { chat_id: a.user_id, chat_type: 'private', message_id: first.message_id, text: 'edited' };
    assert.equal(message(await run('editMessageText', { form: edit })).text, 'edited');
    const again = await run('sendMessage', params, { ...key(bot), 'idempotency-key': k });
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(message(again), first);
    // The Telegram surface reads the same key (one queue of sends): it too answers the first message.
    const telegram = await t().app.inject({
      method: 'POST',
      url: `/telegram/bot${bot.telegram_token}/sendMessage`,
      headers: { 'idempotency-key': k },
      payload: { chat_id: a.user_id, text: 'as sent' },
    });
    assert.equal(telegram.statusCode, 200);
    assert.equal(telegram.headers['idempotent-replayed'], 'true');
    const replayed = telegram.json<{ result: { text: string; edit_date?: number } }>().result;
    assert.deepEqual([replayed.text, replayed.edit_date], ['as sent', undefined]);
  });

  it('Idempotency-Key: an empty or overlong key is refused on both bot surfaces and sends nothing', async () => {
    const w = await watch();
    const params = { chat_id: a.user_id, text: 'keyed' };
    const send = (surface: 'native' | 'telegram', k: string) =>
      t().app.inject({
        method: 'POST',
        url: surface === 'native' ? '/openapi/bot/sendMessage' : `/telegram/bot${bot.telegram_token}/sendMessage`,
        headers: { ...key(bot), 'idempotency-key': k },
        payload: params,
      });
    for (const k of ['', 'k'.repeat(256), 'k'.repeat(8000)]) {
      const native = await send('native', k);
      assert.equal(native.statusCode, 200);
      assert.deepEqual(native.json(), {
        ok: false,
        result: null,
        error_code: 400,
        message: 'Bad Request: Idempotency-Key: must be 1 to 255 characters',
        success: false,
      });
      const telegram = await send('telegram', k);
      assert.equal(telegram.statusCode, 400);
      assert.deepEqual(telegram.json(), {
        ok: false,
        error_code: 400,
        description: 'Bad Request: Idempotency-Key: must be 1 to 255 characters',
      });
    }
    assert.deepEqual(await w.added(), []);
    // 255 characters is a key; a method that sends nothing does not read the header.
    message(await run('sendMessage', { form: params }, { ...key(bot), 'idempotency-key': 'k'.repeat(255) }));
    const getMe = await t().app.inject({
      method: 'POST',
      url: `/telegram/bot${bot.telegram_token}/getMe`,
      headers: { 'idempotency-key': '' },
    });
    assert.equal(getMe.statusCode, 200);
  });

  // ------------------------------------------------------------------ sendMessageToFans

  it('Idempotency-Key: sendMessageToFans repeated answers the first count and broadcasts once', async () => {
    const [fanOwner, x, y] = (await createUsers(t().app, 3)) as [TestUser, TestUser, TestUser];
    const fansBot = await createBot(t().app, fanOwner.user_id, 'keyed fans bot');
    const application = await applyForPermission(t().app, fansBot.bot_user_id, 'subscription_account');
    assert.equal(await approveApplication(t().app, application.id), 'approved');
    await applyEvents(
      t().app,
      [x, y].map((u) => ({
        type: 'follow.created',
        data: { follower_id: u.user_id, followed_id: fansBot.bot_user_id },
      })),
    );
    const w = await watch();
    const k = uid('idem');
    const broadcast = (idempotencyKey: string) =>
      run('sendMessageToFans', { form: { text: 'once' } }, { ...key(fansBot), 'idempotency-key': idempotencyKey });
    const first = await broadcast(k);
    assert.deepEqual(result(first), { sent: 2 });
    assert.equal(first.headers['idempotent-replayed'], undefined);
    assert.equal((await w.added()).length, 2);
    // A third follower meanwhile: the repeat still answers what the first did, and sends nothing.
    const [z] = (await createUsers(t().app, 1)) as [TestUser];
    await applyEvents(t().app, [
      { type: 'follow.created', data: { follower_id: z.user_id, followed_id: fansBot.bot_user_id } },
    ]);
    const again = await broadcast(k);
    assert.deepEqual(result(again), { sent: 2 });
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(await w.added(), []);
    assert.deepEqual(result(await broadcast(uid('idem'))), { sent: 3 });
    assert.equal((await w.added()).length, 3);
  });

  it('sendMessageToFans needs the subscription_account permission, then sends to every follower', async () => {
    const [fanOwner, x, y, z] = (await createUsers(t().app, 4)) as [TestUser, TestUser, TestUser, TestUser];
    const fansBot = await createBot(t().app, fanOwner.user_id, 'fans bot');
    await applyEvents(
      t().app,
      [y, x, z].map((u) => ({
        type: 'follow.created',
        data: { follower_id: u.user_id, followed_id: fansBot.bot_user_id },
      })),
    );
    const w = await watch();
    const denied = 'sendMessageToFans needs the subscription_account permission';
    failed(await run('sendMessageToFans', { form: { text: 'news' } }, key(fansBot)), 403, denied);
    const application = await applyForPermission(t().app, fansBot.bot_user_id, 'subscription_account');
    assert.equal(application.status, 'pending');
    failed(
      await run('sendMessageToFans', { form: { text: 'news' } }, key(fansBot)),
      403,
      denied,
      'pending is not granted',
    );
    assert.deepEqual(await w.added(), []);
    assert.equal(await approveApplication(t().app, application.id), 'approved');

    const keyboard = { inline_keyboard: [[{ text: 'Read', url: 'https://news.example/1' }]] };
    assert.deepEqual(
      result(
        await run('sendMessageToFans', { form: { text: RICH, reply_markup: JSON.stringify(keyboard) } }, key(fansBot)),
      ),
      { sent: 3 },
    );
    const rows = await w.added();
    assert.deepEqual(
      rows.map(({ id, ...r }) => {
        assert.equal(typeof id, 'string');
        return r;
      }),
      [y, x, z].map((u) => ({
        chat_type: 'private',
        to_user_id: u.user_id,
        from_user_id: fansBot.bot_user_id,
        object_name: 'richtext',
        content: RICH,
        mention_user_ids: [],
        reply_markup: keyboard,
        created_at: iso(),
      })),
    );
    assert.equal(new Set(rows.map((r) => r.id)).size, 3);
    assert.deepEqual(
      result(await run('sendMessageToFans', { json: { text: 'plain', parse_mode: 'text' } }, key(fansBot))),
      { sent: 3 },
    );
    assert.deepEqual(
      (await w.added()).map((r) => [r.to_user_id, r.object_name, r.content]),
      [y, x, z].map((u) => [u.user_id, 'text', 'plain']),
    );
    // The rules of a send still hold.
    failed(
      await run('sendMessageToFans', { form: { text: `${IMG}pic` } }, key(fansBot)),
      403,
      'image sending requires level 2',
    );
    failed(await run('sendMessageToFans', { form: {} }, key(fansBot)), 400, 'Bad Request: text: required');
    failed(
      await run(
        'sendMessageToFans',
        {
          form: {
            text: 'x',
            reply_markup: JSON.stringify({ inline_keyboard: [[{ text: 'x', url: 'http://a.example' }]] }),
          },
        },
        key(fansBot),
      ),
      400,
      'Bad Request: reply_markup: button links must start with https://',
    );
    // Another bot without the permission is still refused.
    failed(await run('sendMessageToFans', { form: { text: 'news' } }), 403, denied);
    assert.deepEqual(await w.added(), []);
  });

  // ------------------------------------------------------------------ editMessageText / editMessage

  it('editMessageText and editMessage replace the text of the bot’s own message', async () => {
    const w = await watch();
    const sent = message(await run('sendMessage', { form: { chat_id: a.user_id, text: 'v1', parse_mode: 'text' } }));
    const [row] = await w.added();
    assert.equal(row?.content, 'v1');
    clock.advance(5000);
    const keyboard = { inline_keyboard: [[{ text: 'Go', callback_data: 'go' }]] };
    const edited = message(
      await run('editMessageText', {
        form: {
          chat_id: a.user_id,
          chat_type: 'private',
          message_id: sent.message_id,
          text: 'v2',
          parse_mode: 'text',
          reply_markup: JSON.stringify(keyboard),
        },
      }),
    );
    assert.deepEqual(edited, {
      ...sent,
      text: 'v2',
      text_raw: 'v2',
      date: now(),
      reply_markup: keyboard,
    });
    const after1 = await outboxSince(t().app, '0');
    const stored = after1.messages.find((m) => m.id === sent.message_id);
    assert.deepEqual(
      stored,
      { ...row, content: 'v2', reply_markup: keyboard, edited_at: iso() },
      'same outbox row, new content',
    );

    const alias = message(
      await run('editMessage', { json: { chat_id: a.user_id, message_id: sent.message_id, text: RICH } }),
    );
    assert.deepEqual(
      [alias.message_id, alias.text, alias.text_raw, alias.kind, alias.reply_markup],
      [sent.message_id, RICH_PLAIN, RICH, 'richtext', null],
    );
    const after2 = (await outboxSince(t().app, '0')).messages.find((m) => m.id === sent.message_id);
    assert.deepEqual(after2, { ...row, content: RICH, object_name: 'richtext', edited_at: iso() });

    // A group message, chat type inferred.
    const inGroup = message(await run('sendMessage', { form: { chat_id: group, text: 'g1', parse_mode: 'text' } }));
    const groupEdit = message(
      await run('editMessageText', {
        query: { chat_id: group, message_id: inGroup.message_id, text: 'g2', parse_mode: 'text' },
      }),
    );
    assert.deepEqual([groupEdit.chat, groupEdit.text], [groupChat, 'g2']);
    assert.deepEqual(
      (await w.added()).map((r) => [r.id, r.content]),
      [[inGroup.message_id, 'g2']],
      'an edit adds no row',
    );
  });

  it('editMessageText takes the telegram_message_id (a number or its text) within the chat', async () => {
    const sent = message(await run('sendMessage', { form: { chat_id: a.user_id, text: 'n1', parse_mode: 'text' } }));
    const n = sent.telegram_message_id;
    assert.equal(n, await messageNumber(t().services, sent.message_id));
    const byNumber = message(
      await run('editMessageText', { json: { chat_id: a.user_id, message_id: n, text: 'n2', parse_mode: 'text' } }),
    );
    assert.deepEqual([byNumber.message_id, byNumber.telegram_message_id, byNumber.text], [sent.message_id, n, 'n2']);
    const byText = message(
      await run('editMessage', {
        form: { chat_id: a.user_id, message_id: String(n), text: 'n3', parse_mode: 'text' },
      }),
    );
    assert.deepEqual([byText.message_id, byText.text], [sent.message_id, 'n3']);
    failed(
      await run('editMessageText', { json: { chat_id: b.user_id, message_id: n, text: 'x', parse_mode: 'text' } }),
      404,
      'message not found',
      'the number in another chat',
    );
  });

  it('editing another bot’s message is 403; an unknown message or the wrong chat 404; nothing changes', async () => {
    const theirs = message(
      await run('sendMessage', { form: { chat_id: a.user_id, text: 'theirs', parse_mode: 'text' } }, key(otherBot)),
    );
    const mine = message(await run('sendMessage', { form: { chat_id: a.user_id, text: 'mine', parse_mode: 'text' } }));
    const before = (await outboxSince(t().app, '0')).messages;
    const edit = (p: Record<string, string>) => run('editMessageText', { form: { text: 'changed', ...p } });
    for (const method of ['editMessageText', 'editMessage']) {
      failed(
        await run(method, { form: { chat_id: a.user_id, message_id: theirs.message_id, text: 'changed' } }),
        403,
        'a bot can edit only its own messages',
        method,
      );
    }
    failed(await edit({ chat_id: a.user_id, message_id: 'no-such-message' }), 404, 'message not found');
    failed(await edit({ chat_id: b.user_id, message_id: mine.message_id }), 404, 'message not found', 'wrong user');
    failed(await edit({ chat_id: group, message_id: mine.message_id }), 404, 'message not found', 'a group');
    failed(
      await edit({ chat_id: a.user_id, chat_type: 'group', message_id: mine.message_id }),
      404,
      'message not found',
      'wrong chat type',
    );
    failed(await edit({ chat_id: a.user_id }), 400, 'Bad Request: message_id: required');
    failed(
      await run('editMessageText', { form: { chat_id: a.user_id, message_id: mine.message_id } }),
      400,
      'Bad Request: text: required',
    );
    failed(
      await edit({ chat_id: a.user_id, message_id: mine.message_id, text: `${IMG}x` }),
      403,
      'image sending requires level 2',
    );
    failed(
      await edit({
        chat_id: a.user_id,
        message_id: mine.message_id,
        reply_markup: JSON.stringify({ inline_keyboard: [[{ text: 'x', url: 'http://a.example' }]] }),
      }),
      400,
      'Bad Request: reply_markup: button links must start with https://',
    );
    assert.deepEqual((await outboxSince(t().app, '0')).messages, before, 'the outbox is unchanged');
  });
});

// ---------------------------------------------------------------------- rate limits on bot methods

await describeStoresOnFakeClock(
  'bot methods: rate limited envelope',
  (t, limitClock) => {
    /** The rate-limited envelope on HTTP 200, with retry_after and Retry-After of `seconds`. */
    const rateLimited = (r: Answer, seconds: number) => {
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        ok: false,
        result: null,
        error_code: 429,
        message: 'rate limit exceeded',
        success: false,
        parameters: { retry_after: seconds },
      });
      assert.equal(r.headers['retry-after'], String(seconds));
    };

    it('sendMessage beyond the private burst answers HTTP 200 error_code 429 with retry_after and Retry-After', async () => {
      const [owner, a] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
      const bot = await createBot(t().app, owner.user_id);
      const w = await watchOutbox(t().app);
      const send = () =>
        call(t().app, 'sendMessage', { form: { chat_id: a.user_id, text: 'hi' } }, { 'x-api-key': bot.api_key });
      for (let i = 0; i < 5; i++) result(await send(), `#${i}`);
      rateLimited(await send(), 1);
      assert.equal((await w.added()).length, 5);
      limitClock.advance(1000);
      result(await send(), 'after 1 s');
    });

    it('a group beyond 20 per minute answers retry_after 3', async () => {
      const [owner] = (await createUsers(t().app, 1)) as [TestUser];
      const bot = await createBot(t().app, owner.user_id);
      const gid = uid('g');
      await applyEvents(t().app, [
        { type: 'group.upserted', data: { group_id: gid, name: 'g', invite_url: `https://chat.example/${gid}` } },
        { type: 'group.member.joined', data: { group_id: gid, user_id: bot.bot_user_id } },
      ]);
      const send = () =>
        call(t().app, 'sendMessage', { json: { chat_id: gid, text: 'hi' } }, { 'x-api-key': bot.api_key });
      for (let i = 0; i < 20; i++) result(await send(), `#${i}`);
      rateLimited(await send(), 3);
    });
  },
  { env: { RATE_LIMITS: 'on' } },
);
