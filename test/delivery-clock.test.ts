// Webhook delivery against clocks that differ or move: instances whose clocks differ by up to the
// skew they are allowed (CLOCK_SKEW_MS), and a wall clock set back (NTP) or briefly far ahead.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CLOCK_SKEW_MS } from '../src/lib/clock.js';
import { settlesWithin } from '../src/lib/deadline.js';
import { describeStoresOnFakeClock, dropSchema, FakeClock, startTestApp, type TestApp } from './helpers/app.js';
import { botCall, result, say, startReceiver } from './helpers/delivery.js';
import { createBot, createUsers, type TestUser } from './helpers/factories.js';
import { holdingReceiver } from './helpers/holding-receiver.js';
import { storesUnderTest } from './helpers/stores.js';

for (const store of await storesUnderTest()) {
  await describe(`webhook leases on instances whose clocks differ [${store}]`, () => {
    // The lease was the 10 s timeout + 20 s, stamped on the leasing instance's clock: an instance
    // 25 s ahead saw it run out 6 s into an attempt still out, and sent the same Update in parallel.
    it(
      'an instance ahead by less than the skew does not send an Update whose attempt is out',
      { timeout: 30_000 },
      async () => {
        const schema = `t_${randomBytes(6).toString('hex')}`;
        // One store for both: a SQLite file, or a PostgreSQL schema.
        const shared =
          store === 'sqlite'
            ? { sqliteFile: join(mkdtempSync(join(tmpdir(), 'op-skew-')), 'platform.db') }
            : { schema };
        const on = { ...shared, encryptionKey: randomBytes(32), env: { WEBHOOK_ALLOW_INSECURE: '1' } };
        const clockA = new FakeClock();
        const clockB = new FakeClock(clockA.ms + CLOCK_SKEW_MS - 1_000);
        const receiver = await holdingReceiver(200);
        const apps: TestApp[] = [];
        let attempt: Promise<number> | undefined;
        let held: ReturnType<typeof receiver.holdNext> | undefined;
        try {
          const a = await startTestApp(store, { ...on, clock: clockA });
          apps.push(a);
          const b = await startTestApp(store, { ...on, clock: clockB });
          apps.push(b);
          const [owner, fan] = (await createUsers(a.app, 2)) as [TestUser, TestUser];
          const bot = await createBot(a.app, owner.user_id);
          assert.equal((await botCall(a.app, 'setWebhook', bot.api_key, { url: receiver.url })).body.ok, true);
          await say(a.app, { from: fan.user_id, to: bot.bot_user_id, text: 'once' });

          held = receiver.holdNext();
          attempt = a.services.dispatcher.tick();
          await held.arrived;
          // The receiver takes just under the 10 s webhook timeout: A's attempt is still out.
          clockA.advance(9_999);
          clockB.advance(9_999);
          const passOfB = b.services.dispatcher.tick();
          assert.equal(await settlesWithin(passOfB, 1_000), true, "B's pass starts nothing, so it ends at once");
          assert.equal(await passOfB, 0);
          assert.equal(receiver.bodies.length, 1, 'one POST while the attempt is out');

          held.release(200);
          assert.equal(await attempt, 1);
          attempt = undefined;
          assert.equal(await b.services.dispatcher.tick(), 0, 'delivered: nothing left to send');
          assert.equal(receiver.bodies.length, 1);
        } finally {
          held?.release(200);
          await attempt;
          for (const app of apps.reverse()) await app.close();
          await receiver.close();
          if (store === 'postgres') await dropSchema(schema);
        }
      },
    );
  });
}

const HOUR_MS = 3_600_000;
const YEAR_MS = 365 * 24 * HOUR_MS;

// A failed attempt's retry is stamped on the wall clock: set back an hour (NTP) after it, the
// bot's head Update was due an hour away and held its whole queue back for the hour; stamped by a
// clock briefly years ahead, for years.
await describeStoresOnFakeClock(
  'a webhook queue after the wall clock moved',
  (t, clock) => {
    it('an Update due further away than any schedule goes out now, and a real backoff is still waited for', async () => {
      const [owner, fan] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
      const bot = await createBot(t().app, owner.user_id);
      const receiver = await startReceiver(500);
      const tick = () => t().services.dispatcher.tick();
      try {
        assert.equal((await botCall(t().app, 'setWebhook', bot.api_key, { url: receiver.url })).body.ok, true);
        await say(t().app, { from: fan.user_id, to: bot.bot_user_id, text: 'one' });
        assert.equal(await tick(), 1, 'the first attempt fails: due again in 1 s');
        assert.equal(await tick(), 0, 'not before its backoff');
        receiver.setFallback(200);

        clock.advance(-HOUR_MS);
        await say(t().app, { from: fan.user_id, to: bot.bot_user_id, text: 'two' });
        assert.equal(await tick(), 1, 'set back an hour: the retry goes out now');
        assert.equal(await tick(), 1, 'and the Update behind it');
        assert.equal(receiver.hits.length, 3);

        // Years ahead for a moment: the failed attempt's retry is stamped years away.
        clock.advance(3 * YEAR_MS);
        receiver.setFallback(500);
        await say(t().app, { from: fan.user_id, to: bot.bot_user_id, text: 'three' });
        assert.equal(await tick(), 1);
        clock.advance(-3 * YEAR_MS);
        receiver.setFallback(200);
        assert.equal(await tick(), 1, 'back to the present: due now, not in three years');
        assert.equal(await tick(), 0);
        assert.equal(receiver.hits.length, 5);
        const info = result(await botCall(t().app, 'getWebhookInfo', bot.api_key)) as { pending_update_count: number };
        assert.equal(info.pending_update_count, 0);

        // The longest backoff the platform schedules (a Retry-After capped at WEBHOOK_RETRY_MAX_MS)
        // is not taken for a clock moved: it is waited out, not sent early.
        const longest = t().services.config.webhookRetryMaxMs;
        receiver.script({ status: 503, headers: { 'retry-after': String(Math.ceil(longest / 1000)) } });
        await say(t().app, { from: fan.user_id, to: bot.bot_user_id, text: 'four' });
        assert.equal(await tick(), 1, 'the attempt fails with the longest backoff');
        clock.advance(longest - 1);
        assert.equal(await tick(), 0, 'not sent a moment before its backoff is over');
        clock.advance(1);
        assert.equal(await tick(), 1, 'sent once it is over');
        assert.equal(receiver.hits.length, 7);
      } finally {
        clock.advance(HOUR_MS);
        await receiver.close();
      }
    });
  },
  { env: { WEBHOOK_ALLOW_INSECURE: '1' } },
);
