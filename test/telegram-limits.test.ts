// The Telegram surface's 429 (telegram-api.md "Envelope"): HTTP 429, `Too Many Requests: retry
// after N`, `parameters.retry_after` and a Retry-After header, as grammY reads them; and a file
// upload to sendPhoto is a 400 saying uploads are not supported.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { it } from 'node:test';
import { Bot, GrammyError, InputFile } from 'grammy';
import { describeStores, FakeClock } from './helpers/app.js';
import { createUsers, type TestUser } from './helpers/factories.js';
import { newBot } from './helpers/delivery.js';
import * as telegram from '../src/modules/telegram/repo.js';

const clock = new FakeClock();

await describeStores(
  'Telegram bot API limits through grammY',
  (t) => {
    let bot: Bot;
    let token = '';
    let base = '';
    let alice: TestUser;

    it('starts listening with a bot', async () => {
      await t().app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(t().app.server.address() as AddressInfo).port}`;
      [alice] = (await createUsers(t().app, 1)) as [TestUser];
      const creds = await newBot(t().app, 'limited bot');
      const id = await telegram.telegramIdOf(t().services.db.k, creds.bot_user_id);
      assert.ok(id !== undefined, 'the bot has a number');
      token = `${id}:${creds.api_key}`;
      bot = new Bot(token, { client: { apiRoot: `${base}/telegram` } });
    });

    it('beyond the private burst: GrammyError 429 with retry_after, and Retry-After on the wire', async () => {
      for (let i = 0; i < 5; i++) await bot.api.sendMessage(alice.user_id, `hi ${i}`);
      try {
        await bot.api.sendMessage(alice.user_id, 'one too many');
        assert.fail('the sixth message in a burst was sent');
      } catch (e) {
        assert.ok(e instanceof GrammyError, `expected a GrammyError, got ${String(e)}`);
        assert.equal(e.error_code, 429);
        assert.equal(e.description, 'Too Many Requests: retry after 1');
        assert.deepEqual(e.parameters, { retry_after: 1 });
      }
      const raw = await fetch(`${base}/telegram/bot${token}/sendMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ chat_id: alice.user_id, text: 'still too many' }),
      });
      assert.equal(raw.status, 429);
      assert.equal(raw.headers.get('retry-after'), '1');
      assert.deepEqual(await raw.json(), {
        ok: false,
        error_code: 429,
        description: 'Too Many Requests: retry after 1',
        parameters: { retry_after: 1 },
      });
      clock.advance(1000);
      const sent = await bot.api.sendMessage(alice.user_id, 'after a second');
      assert.equal(sent.text, 'after a second');
    });

    it('sendPhoto with an uploaded file is a 400 that says so', async () => {
      clock.advance(10_000);
      try {
        await bot.api.sendPhoto(alice.user_id, new InputFile(Buffer.from('not really a png'), 'p.png'));
        assert.fail('an upload was accepted');
      } catch (e) {
        assert.ok(e instanceof GrammyError, `expected a GrammyError, got ${String(e)}`);
        assert.equal(e.error_code, 400);
        assert.match(e.description, /^Bad Request: .*upload/i);
      }
    });
  },
  () => ({ clock, env: { RATE_LIMITS: 'on' } }),
);
