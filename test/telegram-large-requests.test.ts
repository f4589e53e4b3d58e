// Requests as large as Telegram takes, in the encodings client libraries use. pyTelegramBotAPI
// sends every parameter in the query string, where a Cyrillic character is 6 bytes (%D1%8F) and a
// 4-byte one 12: the head may be 64 KiB (MAX_HEADER_SIZE), and a larger one is answered 431.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeStores } from './helpers/app.js';
import { createUsers, type BotCreds, type TestUser } from './helpers/factories.js';
import { newBot } from './helpers/delivery.js';
import { listeningPort, rawRequest } from './helpers/raw-http.js';

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
});
