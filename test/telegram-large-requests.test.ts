// Requests as large as Telegram takes, in the encodings client libraries use. pyTelegramBotAPI
// sends every parameter in the query string, where a Cyrillic character is 6 bytes (%D1%8F) and a
// 4-byte one 12: the head may be 64 KiB (MAX_HEADER_SIZE), and a larger one is answered 431.
// python-telegram-bot and aiogram put structured fields in forms as JSON with non-ASCII escaped (a
// Cyrillic character is \u0431, 8 bytes once form-encoded), so a full setMyCommands passes the
// 64 KiB other bodies get: the Telegram surface takes 256 KiB (TELEGRAM_BODY_LIMIT), and answers a
// larger body 413 in its envelope.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeStores } from './helpers/app.js';
import { createUsers, type BotCreds, type TestUser } from './helpers/factories.js';
import { newBot } from './helpers/delivery.js';
import { listeningPort, rawRequest } from './helpers/raw-http.js';

/** JSON as Python's json.dumps writes it by default (ensure_ascii): every non-ASCII character escaped. */
const asciiJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The most setMyCommands carries: 100 commands, each description 256 Cyrillic characters. */
const fullCommands = Array.from({ length: 100 }, (_, i) => ({
  command: `command_${i}`,
  description: `${i} ${'команда'.repeat(40)}`.slice(0, 256),
}));

await describeStores('Telegram requests as large as Telegram takes', (t) => {
  let bot: BotCreds;
  let alice: TestUser;
  const path = (method: string) => `/telegram/bot${bot.telegram_token}/${method}`;
  before(async () => {
    bot = await newBot(t().app, 'large bot');
    [alice] = (await createUsers(t().app, 1)) as [TestUser];
  });

  it('a sendMessage whose text is all in the query string (pyTelegramBotAPI) is taken up to 64 KiB of head', async () => {
    const port = await listeningPort(t().app);
    // 3,400 four-byte characters: 40,800 bytes as %XX; then the longest message, 5,000 of them (60,000).
    for (const count of [3_400, 5_000]) {
      const text = '😀'.repeat(count);
      const url = `http://127.0.0.1:${port}${path('sendMessage')}?${new URLSearchParams({ chat_id: alice.user_id, text }).toString()}`;
      assert.ok(url.length > count * 12, `${url.length} bytes`);
      const r = await fetch(url, { method: 'POST' });
      const body = (await r.json()) as { ok: boolean; result?: { text?: string } };
      assert.equal(r.status, 200, JSON.stringify(body).slice(0, 300));
      assert.equal(body.ok, true);
      assert.equal(body.result?.text, text);
    }
  });

  it('a head beyond 64 KiB is answered 431', async () => {
    const port = await listeningPort(t().app);
    const text = encodeURIComponent('я'.repeat(11_000)); // 66,000 bytes
    const r = await rawRequest(
      port,
      `GET ${path('sendMessage')}?chat_id=${alice.user_id}&text=${text} HTTP/1.1\r\nHost: x`,
    );
    assert.equal(r.status, 431, r.body);
    // Not in the Telegram envelope: Node reads 64 KiB at a time, so the read that overflows never
    // holds the request line, and the surface is unknown (src/http/client-errors.ts).
    assert.deepEqual(JSON.parse(r.body), { error: 'headers_too_large', message: 'request headers too large' });
  });

  const commandsNow = async () => {
    const r = await t().app.inject({ method: 'GET', url: path('getMyCommands') });
    assert.equal(r.statusCode, 200, r.body);
    return r.json<{ result: unknown }>().result;
  };

  it('a setMyCommands form of ~210 KB (ensure_ascii JSON) is taken', async () => {
    const payload = new URLSearchParams({ commands: asciiJson(fullCommands) }).toString();
    assert.ok(payload.length > 200_000 && payload.length < 256 * 1024, `${payload.length} bytes`);
    const r = await t().app.inject({
      method: 'POST',
      url: path('setMyCommands'),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload,
    });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { ok: true, result: true });
    assert.deepEqual(await commandsNow(), fullCommands);
  });

  it('the same as multipart/form-data (aiogram) is taken', async () => {
    const commands = fullCommands.map((c) => ({ ...c, description: `multipart ${c.description}`.slice(0, 256) }));
    const form = new FormData();
    form.append('commands', asciiJson(commands));
    const body = new Response(form);
    const payload = Buffer.from(await body.arrayBuffer());
    assert.ok(payload.length > 100_000, `${payload.length} bytes`);
    const r = await t().app.inject({
      method: 'POST',
      url: path('setMyCommands'),
      headers: { 'content-type': body.headers.get('content-type') ?? '' },
      payload,
    });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { ok: true, result: true });
    assert.deepEqual(await commandsNow(), commands);
  });

  it('beyond 256 KiB, as a form or multipart: 413 in the Telegram envelope', async () => {
    const tooLarge = { ok: false, error_code: 413, description: 'Request Entity Too Large' };
    const text = 'я'.repeat(150_000);
    const form = await t().app.inject({
      method: 'POST',
      url: path('sendMessage'),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ chat_id: '1', text }).toString(),
    });
    assert.equal(form.statusCode, 413, form.body);
    assert.deepEqual(form.json(), tooLarge);
    const multipartForm = new FormData();
    multipartForm.append('chat_id', '1');
    multipartForm.append('text', 'я'.repeat(140_000));
    const body = new Response(multipartForm);
    const multipart = await t().app.inject({
      method: 'POST',
      url: path('sendMessage'),
      headers: { 'content-type': body.headers.get('content-type') ?? '' },
      payload: Buffer.from(await body.arrayBuffer()),
    });
    assert.equal(multipart.statusCode, 413, multipart.body);
    assert.deepEqual(multipart.json(), tooLarge);
  });

  it('other surfaces keep the 64 KiB limit', async () => {
    const r = await t().app.inject({
      method: 'POST',
      url: '/openapi/bot/sendMessage',
      headers: { 'content-type': 'application/json', 'x-api-key': bot.api_key },
      payload: JSON.stringify({ chat_id: '1', text: asciiJson(fullCommands) }),
    });
    // The bot methods' envelope: HTTP 200 with ok:false.
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), {
      ok: false,
      result: null,
      error_code: 413,
      message: 'request body too large',
      success: false,
    });
  });
});
