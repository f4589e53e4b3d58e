// A receiver down for longer than the retention (UPDATE_RETENTION_S, 24 h). The backoff followed
// each Update's own attempts: the head was retried on the schedule (1 s doubling to 10 minutes) for
// its day, but once it was dropped the Update behind it became the head with no attempts, was tried
// at once and at 1, 2, 4 ... s, and was dropped within the minute, and the next one the same: about
// six attempts a minute (8,400 a day instead of 144), each logged with a copy of its Update. The
// backoff now follows the bot's run of failed attempts, whichever Updates they were of.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeStoresOnFakeClock } from './helpers/app.js';
import { botCall, result, say, startReceiver } from './helpers/delivery.js';
import { createBot, createUsers, type TestUser } from './helpers/factories.js';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

await describeStoresOnFakeClock(
  'webhook retries for a receiver down longer than the retention',
  (t, clock) => {
    it(
      'go on at the bot’s backoff once the first head is dropped, and start again from 1 s after a success',
      { timeout: 120_000 },
      async () => {
        const { app, services } = t();
        const [owner, fan] = (await createUsers(app, 2)) as [TestUser, TestUser];
        const bot = await createBot(app, owner.user_id, 'Down for days');
        const receiver = await startReceiver(500);
        const tick = () => services.dispatcher.tick();
        const dm = (text: string) => say(app, { from: fan.user_id, to: bot.bot_user_id, text });
        try {
          result(await botCall(app, 'setWebhook', bot.api_key, { url: receiver.url }));
          const t0 = clock.now();
          // One Update a minute for the first 40 minutes: each is dropped a minute after the one before it.
          for (let minute = 0; minute < 40; minute++) {
            await dm(`minute ${minute}`);
            for (let s = 0; s < 60; s += 15) {
              await tick();
              clock.advance(15_000);
            }
          }
          // The rest of the day: the first Update, retried every 10 minutes (the cap).
          while (clock.now() < t0 + DAY_MS) {
            await tick();
            clock.advance(Math.min(10 * MINUTE_MS, t0 + DAY_MS - clock.now()));
          }
          const firstDay = receiver.hits.length;
          assert.ok(firstDay >= 140 && firstDay <= 160, `${firstDay} attempts in the first day`);

          // The first Update is dropped; the ones behind it wait for the bot's next attempt, at
          // most 10 minutes after its last one, and then 10 minutes apart.
          for (let s = 0; s < 600; s++) {
            await tick();
            clock.advance(1_000);
          }
          const afterDay = receiver.hits.length - firstDay;
          assert.ok(afterDay >= 1 && afterDay <= 2, `${afterDay} attempts in the 10 minutes after the first day`);

          // The receiver is back: the bot's next attempt gets through, and the Updates behind it follow at once.
          receiver.setFallback(200);
          let waited = 0;
          while ((await tick()) === 0) {
            assert.ok(waited <= 600, 'the next attempt within 10 minutes');
            clock.advance(1_000);
            waited += 1;
          }
          let delivered = 1;
          while ((await tick()) === 1) delivered += 1;
          assert.ok(delivered >= 2, `${delivered} Updates delivered one after another`);

          // The run of failures ended with the success: a new failure is retried after 1 s again.
          receiver.setFallback(500);
          await dm('after the outage');
          assert.equal(await tick(), 1, 'the first attempt fails');
          clock.advance(999);
          assert.equal(await tick(), 0, 'not before 1 s');
          clock.advance(1);
          assert.equal(await tick(), 1, 'retried after 1 s, not after 10 minutes');
        } finally {
          await receiver.close();
        }
      },
    );
  },
  { env: { WEBHOOK_ALLOW_INSECURE: '1' } },
);
