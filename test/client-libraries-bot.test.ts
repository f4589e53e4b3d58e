// decisions.md section 7, the bot methods: requests exactly as the official SDKs marshal them
// (Go: a form with reply_markup as JSON text, empty strings for unset button fields, font_size and
// font_color, parse_mode=HTML; Node: JSON with objects; Python: a form with parse_mode=MarkdownV2),
// checked on the sent Message, the outbox row and the Update a polling bot receives.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { adminHeaders, describeStoresOnFakeClock } from './helpers/app.js';
import {
  applyEvents,
  applyForPermission,
  approveApplication,
  createBot,
  createUsers,
  uid,
  type BotCreds,
  type TestUser,
} from './helpers/factories.js';
import { bold, italic, link } from './helpers/richtext.js';
import type { App } from '../src/http/types.js';
import type { OutboxMessageView } from '../src/modules/outbox/service.js';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

interface Message {
  message_id: string;
  text: string;
  text_raw: string;
  kind: string;
  reply_markup: unknown;
  [field: string]: unknown;
}

/** The Go and Python SDKs: application/x-www-form-urlencoded, structured fields as JSON text. */
async function form(app: App, method: string, key: string, fields: Record<string, string>): Promise<Answer> {
  const res = await app.inject({
    method: 'POST',
    url: `/openapi/bot/${method}`,
    headers: { 'x-api-key': key, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
}

/** The Node SDK: a JSON body, reply_markup as an object. */
async function json(app: App, method: string, key: string, body: Record<string, unknown>): Promise<Answer> {
  const res = await app.inject({
    method: 'POST',
    url: `/openapi/bot/${method}`,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
}

function result(r: Answer, what = ''): unknown {
  assert.equal(r.status, 200, what);
  assert.equal(r.body.ok, true, `${what} ${JSON.stringify(r.body)}`);
  assert.deepEqual(
    { ...r.body, result: null },
    { ok: true, result: null, error_code: 0, message: 'success', success: true },
    what,
  );
  return r.body.result;
}

const message = (r: Answer, what = ''): Message => result(r, what) as Message;

function failed(r: Answer, errorCode: number, msg: string, what = ''): void {
  assert.equal(r.status, 200, `${what} ${JSON.stringify(r.body)}`);
  assert.deepEqual(r.body, { ok: false, result: null, error_code: errorCode, message: msg, success: false }, what);
}

async function outbox(app: App): Promise<OutboxMessageView[]> {
  const res = await app.inject({
    method: 'GET',
    url: '/internal/v1/messages?after=0&limit=1000',
    headers: adminHeaders,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ messages: OutboxMessageView[] }>().messages;
}

const row = async (app: App, id: string): Promise<OutboxMessageView | undefined> =>
  (await outbox(app)).find((m) => m.id === id);

await describeStoresOnFakeClock('client libraries: bot methods (decisions.md section 7)', (t) => {
  let owner: TestUser;
  let a: TestUser;
  let energizer: TestUser;
  let bot: BotCreds;
  let strongBot: BotCreds;
  const group = uid('g');
  const app = () => t().app;

  /** A button press by `user`, then what the bot gets from getUpdates (no offset, as SDK examples poll). */
  async function pressAndPoll(user: TestUser, messageId: string, data: string): Promise<Record<string, unknown>> {
    const callback_id = uid('cb');
    await applyEvents(app(), [
      { type: 'button.clicked', data: { callback_id, message_id: messageId, user_id: user.user_id, data } },
    ]);
    const updates = result(await form(app(), 'getUpdates', bot.api_key, {})) as Record<string, unknown>[];
    assert.equal(updates.length, 1, JSON.stringify(updates));
    const [update] = updates;
    const query = update?.callback_query as Record<string, unknown> | undefined;
    assert.ok(query !== undefined, `a callback_query Update: ${JSON.stringify(update)}`);
    assert.deepEqual([query.id, query.data], [callback_id, data]);
    return query.message as Record<string, unknown>;
  }

  /** sendMessage as the Go and Python SDKs send it (a form), to user a: the sent Message. */
  const formToA = async (fields: Record<string, string>) =>
    message(await form(app(), 'sendMessage', bot.api_key, { chat_id: a.user_id, ...fields }));

  it('builds users, bots and a group', async () => {
    [owner, a] = (await createUsers(app(), 2)) as [TestUser, TestUser];
    [energizer] = (await createUsers(app(), 1, { level: 5 })) as [TestUser];
    bot = await createBot(app(), owner.user_id);
    strongBot = await createBot(app(), owner.user_id, 'strong bot');
    await applyEvents(app(), [
      { type: 'group.upserted', data: { group_id: group, name: 'g', invite_url: `https://chat.example/${group}` } },
      { type: 'group.member.joined', data: { group_id: group, user_id: bot.bot_user_id } },
      { type: 'bot.energized', data: { bot_user_id: strongBot.bot_user_id, by_user_id: energizer.user_id } },
    ]);
  });

  it('Go SDK: a form with parse_mode=HTML, font_size/font_color and empty button fields; echoed in the Message and the callback Update', async () => {
    const replyMarkup = JSON.stringify({
      inline_keyboard: [
        [
          { text: '', url: '', callback_data: 'x', sub_text: 'Menu', sub_text_color: '#ff0000' },
          { text: 'Site', url: 'https://site.example/', callback_data: '', sub_text: '', sub_text_color: '' },
        ],
        [{ text: 'Label', url: '', callback_data: '', sub_text: '', sub_text_color: '' }],
      ],
      font_size: 14,
      font_color: '#333333',
    });
    const html = '<b>Menu</b> &amp; <i>pick</i> <a href="https://docs.example/x">docs</a><br><span>ok</span>';
    const converted = `${bold('Menu')} & ${italic('pick')} ${link('docs', 'https://docs.example/x')}\nok`;
    const keyboard = {
      inline_keyboard: [
        [
          { callback_data: 'x', sub_text: 'Menu', sub_text_color: '#ff0000' },
          { text: 'Site', url: 'https://site.example/' },
        ],
        [{ text: 'Label' }],
      ],
      font_size: 14,
      font_color: '#333333',
    };
    const sent = await formToA({ chat_type: 'private', text: html, parse_mode: 'HTML', reply_markup: replyMarkup });
    assert.deepEqual(
      [sent.text, sent.text_raw, sent.kind, sent.reply_markup],
      ['Menu & pick docs\nok', converted, 'richtext', keyboard],
    );
    const stored = await row(app(), sent.message_id);
    assert.deepEqual([stored?.object_name, stored?.content], ['richtext', converted]);
    assert.deepEqual(await pressAndPoll(a, sent.message_id, 'x'), sent, 'the Update carries the same Message');

    // Edited the Go way: parse_mode in lower case, empty style strings mean "not given".
    const edited = message(
      await form(app(), 'editMessageText', bot.api_key, {
        chat_id: a.user_id,
        chat_type: 'private',
        message_id: sent.message_id,
        text: '<strong>v2</strong>',
        parse_mode: 'html',
        reply_markup: JSON.stringify({
          inline_keyboard: [[{ text: 'Again', url: '', callback_data: 'y', sub_text: '', sub_text_color: '' }]],
          font_size: '',
          font_color: '',
        }),
      }),
    );
    const v2 = bold('v2');
    assert.deepEqual(
      [edited.message_id, edited.text, edited.text_raw, edited.reply_markup],
      [sent.message_id, 'v2', v2, { inline_keyboard: [[{ text: 'Again', callback_data: 'y' }]] }],
    );
    assert.deepEqual([(await row(app(), sent.message_id))?.content], [v2]);
    assert.deepEqual(await pressAndPoll(a, sent.message_id, 'y'), edited);

    // The keyboard style also reaches a group message sent by JSON.
    const inGroup = message(
      await json(app(), 'sendMessage', bot.api_key, {
        chat_id: group,
        text: 'g',
        parse_mode: 'Text',
        reply_markup: { inline_keyboard: [[{ text: 'Go', callback_data: 'g' }]], font_size: '12', font_color: 'red' },
      }),
    );
    assert.deepEqual(inGroup.reply_markup, {
      inline_keyboard: [[{ text: 'Go', callback_data: 'g' }]],
      font_size: '12',
      font_color: 'red',
    });
  });

  it('Node SDK: JSON with login_url as an object or a string, echoed as sent; Markdown', async () => {
    const markup = {
      inline_keyboard: [
        [
          {
            text: 'Log in',
            login_url: {
              url: 'https://login.example/auth',
              forward_text: 'Log in here',
              bot_username: 'test_bot',
              request_write_access: true,
            },
          },
          { text: 'Plain', login_url: 'https://login.example/plain' },
        ],
      ],
    };
    const sent = message(
      await json(app(), 'sendMessage', bot.api_key, {
        chat_id: a.user_id,
        text: '*Hello* _there_ [site](https://site.example/)',
        parse_mode: 'Markdown',
        reply_markup: markup,
      }),
    );
    assert.deepEqual(sent.reply_markup, markup);
    assert.equal(sent.text, 'Hello there site');
    assert.equal(sent.text_raw, `${bold('Hello')} ${italic('there')} ${link('site', 'https://site.example/')}`);
    assert.equal((await row(app(), sent.message_id))?.object_name, 'richtext');
    const before = (await outbox(app())).length;
    for (const login_url of [{ url: 'http://login.example/' }, 'http://login.example/', { url: 'javascript:x' }]) {
      failed(
        await json(app(), 'sendMessage', bot.api_key, {
          chat_id: a.user_id,
          text: 'x',
          reply_markup: { inline_keyboard: [[{ text: 'L', login_url }]] },
        }),
        400,
        'Bad Request: reply_markup: button links must start with https://',
        JSON.stringify(login_url),
      );
    }
    failed(
      await json(app(), 'sendMessage', bot.api_key, {
        chat_id: a.user_id,
        text: 'x',
        reply_markup: { inline_keyboard: [[{ text: 'L', login_url: { forward_text: 'no url' } }]] },
      }),
      400,
      'Bad Request: reply_markup: expected {"inline_keyboard": [[{"text": ...}]]}',
    );
    assert.equal((await outbox(app())).length, before, 'nothing refused is stored');
  });

  it('Python SDK: a form with parse_mode=MarkdownV2; escapes come out as the plain character', async () => {
    const sent = await formToA({ text: 'Price: *1\\.50* \\! \\(today\\) 1\\. not a list', parse_mode: 'MarkdownV2' });
    assert.deepEqual(
      [sent.text, sent.text_raw],
      ['Price: 1.50 ! (today) 1. not a list', `Price: ${bold('1.50')} ! (today) 1. not a list`],
    );
    const lower = await formToA({ text: 'plain \\_x\\_', parse_mode: 'markdownv2' });
    assert.deepEqual([lower.text, lower.text_raw, lower.kind], ['plain _x_', 'plain _x_', 'richtext']);
  });

  it('content is the text when text is absent: sendMessage, editMessageText, sendMessageToFans', async () => {
    const sent = await formToA({ content: 'from content', parse_mode: 'text' });
    assert.deepEqual([sent.text, (await row(app(), sent.message_id))?.content], ['from content', 'from content']);
    const both = message(
      await form(app(), 'sendMessage', bot.api_key, { chat_id: a.user_id, text: 'text wins', content: '' }),
    );
    assert.equal(both.text, 'text wins');
    const edited = message(
      await json(app(), 'editMessageText', bot.api_key, {
        chat_id: a.user_id,
        message_id: sent.message_id,
        content: '<b>bold</b>',
        parse_mode: 'HTML',
      }),
    );
    assert.equal(edited.text, 'bold');
    failed(
      await form(app(), 'sendMessage', bot.api_key, { chat_id: a.user_id, content: '' }),
      400,
      'Bad Request: text: required',
    );
    failed(
      await json(app(), 'sendMessage', bot.api_key, { chat_id: a.user_id, content: 'x'.repeat(5001) }),
      400,
      'Bad Request: content: must be text of at most 5000 characters',
    );

    const [fan] = (await createUsers(app(), 1)) as [TestUser];
    const fansBot = await createBot(app(), owner.user_id, 'fans bot');
    await applyEvents(app(), [
      { type: 'follow.created', data: { follower_id: fan.user_id, followed_id: fansBot.bot_user_id } },
    ]);
    const application = await applyForPermission(app(), fansBot.bot_user_id, 'subscription_account');
    await approveApplication(app(), application.id);
    assert.deepEqual(
      result(await form(app(), 'sendMessageToFans', fansBot.api_key, { content: 'news', parse_mode: 'HTML' })),
      { sent: 1 },
    );
    const news = (await outbox(app())).filter((m) => m.from_user_id === fansBot.bot_user_id);
    assert.deepEqual(
      news.map((m) => [m.to_user_id, m.object_name, m.content]),
      [[fan.user_id, 'richtext', 'news']],
    );
  });

  it('parse_mode image, video, file: the https URL of the medium; image needs Lv.2', async () => {
    const url = 'https://media.example/cat.png';
    failed(
      await form(app(), 'sendMessage', bot.api_key, { chat_id: a.user_id, text: url, parse_mode: 'image' }),
      403,
      'image sending requires level 2',
    );
    const image = message(
      await form(app(), 'sendMessage', strongBot.api_key, { chat_id: a.user_id, text: url, parse_mode: 'Image' }),
    );
    assert.deepEqual([image.text, image.text_raw, image.kind], [url, url, 'image']);
    const video = await formToA({ text: ' https://media.example/v.mp4 ', parse_mode: 'video' });
    assert.deepEqual([video.text, video.kind], ['https://media.example/v.mp4', 'video']);
    const file = message(
      await json(app(), 'sendMessage', bot.api_key, {
        chat_id: a.user_id,
        text: 'https://media.example/a.pdf',
        parse_mode: 'FILE',
      }),
    );
    assert.equal(file.kind, 'file');
    const names = await Promise.all(
      [image, video, file].map(async (m) => (await row(app(), m.message_id))?.object_name),
    );
    assert.deepEqual(names, ['image', 'video', 'file']);
    failed(
      await form(app(), 'sendMessage', bot.api_key, {
        chat_id: a.user_id,
        text: 'http://media.example/a.pdf',
        parse_mode: 'file',
      }),
      400,
      'Bad Request: text: must be the https:// URL of the file',
    );
  });

  it('an unknown parse_mode and hostile HTML get parameter errors, never a 500; nothing is stored', async () => {
    const before = await outbox(app());
    const send = (text: string, parse_mode: string) =>
      form(app(), 'sendMessage', bot.api_key, { chat_id: a.user_id, text, parse_mode });
    const badLink = (url: string) => `Bad Request: text: links must be https:// URLs (got "${url}")`;
    const refusals: [text: string, parseMode: string, errorCode: number, message: string][] = [
      [
        'x',
        'bbcode',
        400,
        'Bad Request: parse_mode: must be one of text, richtext, HTML, Markdown, MarkdownV2, image, video, file',
      ],
      ['<a href="javascript:alert(1)">x</a>', 'HTML', 400, badLink('javascript:alert(1)')],
      ['<a href="http://x.example/">x</a>', 'HTML', 400, badLink('http://x.example/')],
      ['[x](javascript:alert(1))', 'MarkdownV2', 400, badLink('javascript:alert(1)')],
      ['<script>alert(1)</script>', 'HTML', 400, 'Bad Request: text: nothing to show after conversion'],
      ['<img src="https://i.example/x.png" onerror="alert(1)">x', 'HTML', 403, 'image sending requires level 2'],
    ];
    for (const [text, parseMode, errorCode, refusal] of refusals) {
      failed(await send(text, parseMode), errorCode, refusal, `${parseMode}: ${text}`);
    }
    assert.deepEqual(await outbox(app()), before);
    const deep = message(await send(`${'<b>'.repeat(1600)}deep`, 'HTML'));
    assert.equal(deep.text, 'deep');
    const unclosed = message(await send('<i><b>open <img src="x" onerror="y"', 'HTML'));
    assert.equal(unclosed.text, 'open ');
  });

  it('error wording stays: the signed path answers Param error with code 401', async () => {
    const res = await app().inject({
      method: 'POST',
      url: '/openapi/messages/private/send',
      headers: { 'x-api-key': bot.api_key },
      payload: { object_name: 'html', content: '<b>x</b>', to_user_id: a.user_id },
    });
    assert.equal(res.statusCode, 401, res.body);
    assert.deepEqual(
      { ...res.json<Record<string, unknown>>(), detail: undefined },
      { error: 'Bad Request', code: 401, message: 'Param error', detail: undefined },
    );
  });
});
