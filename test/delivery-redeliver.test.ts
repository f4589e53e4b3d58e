// A redelivery (the developer site's and the console's Redeliver) of an Update while an attempt of
// it is under way: it made the leased Update due again, so another dispatcher (another instance on
// the same store) sent it a second time in parallel, and the first attempt's outcome overwrote the
// redelivery. It is refused now; once the attempt has failed (to whichever URL), the redelivery
// goes through.
// Time moves only on a FakeClock; the dispatchers run one pass per tick().
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Work } from '../src/db/work.js';
import { AppError } from '../src/errors.js';
import { WebhookDispatcher } from '../src/modules/delivery/index.js';
import { describePostgres, describeStoresOnFakeClock, FakeClock, type TestApp } from './helpers/app.js';
import { metric, say } from './helpers/delivery.js';
import { createBot, createUsers, type TestUser } from './helpers/factories.js';
import { holdingReceiver } from './helpers/holding-receiver.js';
import { blockedBy, holdTransaction, tracked, type HeldTransaction } from './helpers/pg-locks.js';

/** Points the bot's webhook at `hookUrl` (a receiver answering 500) and has `fan` write to it: the failed first attempt. */
async function failedFirstAttempt(t: TestApp, owner: TestUser, fan: TestUser, botUserId: string, hookUrl: string) {
  const s = t.services;
  const url = await s.delivery.vet(hookUrl);
  await s.work.run((w) => s.developers.setWebhook(w, owner.user_id, botUserId, url));
  await say(t.app, { from: fan.user_id, to: botUserId, text: 'hello' });
  assert.equal(await s.dispatcher.tick(), 1, 'the first attempt');
  const [failedOne] = await s.developers.deliveries(owner.user_id, botUserId);
  assert.ok(failedOne?.state === 'failed', 'the first attempt failed');
  return failedOne;
}

/** 'redelivered', or the id of the AppError the redelivery was refused with. */
async function outcome(redeliver: () => Promise<unknown>): Promise<string> {
  try {
    await redeliver();
    return 'redelivered';
  } catch (e) {
    if (e instanceof AppError) return e.def.id;
    throw e;
  }
}

/** A bot with its owner and a fan, a receiver answering 500, and another instance's dispatcher on the same store. */
async function twoDispatchers(t: TestApp, name: string) {
  const s = t.services;
  const [owner, fan] = (await createUsers(t.app, 2)) as [TestUser, TestUser];
  const bot = await createBot(t.app, owner.user_id, name);
  return {
    s,
    owner,
    fan,
    bot,
    redeliver: (id: number) =>
      outcome(() => s.work.run((w) => s.developers.redeliver(w, owner.user_id, bot.bot_user_id, id))),
    other: new WebhookDispatcher(s.db, s.work, s.clock, s.box, s.metrics, s.config, s.invalidations),
    hook: await holdingReceiver(500),
  };
}

await describeStoresOnFakeClock(
  'redelivery while an attempt is under way',
  (t, clock) => {
    it(
      'is refused: no other instance sends the Update in parallel, and the failure it ends in can be redelivered',
      {
        timeout: 30_000,
      },
      async () => {
        const { s, owner, fan, bot, redeliver, other, hook } = await twoDispatchers(t(), 'Leased');
        const log = async () =>
          (await s.developers.deliveries(owner.user_id, bot.bot_user_id)).map((d) => [d.attempt, d.state]);
        let held: ReturnType<typeof hook.holdNext> | undefined;
        let attempt: Promise<number> | undefined;
        try {
          const failedOne = await failedFirstAttempt(t(), owner, fan, bot.bot_user_id, hook.url);

          // Past its backoff, the retry goes out and the receiver holds it: its lease is live.
          clock.advance(60_000);
          held = hook.holdNext();
          attempt = s.dispatcher.tick();
          await held.arrived;
          const redelivery = await redeliver(failedOne.id);
          const parallel = await other.tick();
          assert.deepEqual(
            { redelivery, parallel, posts: hook.bodies.length },
            { redelivery: 'delivery_in_flight', parallel: 0, posts: 2 },
          );

          held.release(500);
          assert.equal(await attempt, 1);
          attempt = undefined;
          // The attempt's failure stands: due after its backoff, not before.
          assert.deepEqual(await log(), [
            [2, 'failed'],
            [1, 'failed'],
          ]);
          assert.equal(await other.tick(), 0, 'waiting out the backoff');
          // Now that no attempt holds it, the redelivery sends it at once, once.
          hook.answer(200);
          assert.equal(await redeliver(failedOne.id), 'redelivered');
          assert.equal(await other.tick(), 1);
          assert.equal(await s.dispatcher.tick(), 0);
          assert.deepEqual(await log(), [
            [3, 'delivered'],
            [2, 'redelivered'],
            [1, 'redelivered'],
          ]);
          assert.equal(hook.bodies.length, 3);
        } finally {
          held?.release(500);
          await attempt;
          await hook.close();
        }
      },
    );

    it('an attempt that fails after a new Webhook URL was set ends its lease: a redelivery goes to the new URL at once', async () => {
      const s = t().services;
      const run = <T>(fn: (w: Work) => Promise<T>) => s.work.run(fn);
      const [owner, fan] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
      const bot = await createBot(t().app, owner.user_id, 'Moved');
      const setWebhook = async (url: string) => {
        const vetted = await s.delivery.vet(url);
        await run((w) => s.developers.setWebhook(w, owner.user_id, bot.bot_user_id, vetted));
      };
      const [before, after] = [await holdingReceiver(500), await holdingReceiver(200)];
      const held = before.holdNext();
      let attempt: Promise<number> | undefined;
      try {
        await setWebhook(before.url);
        await say(t().app, { from: fan.user_id, to: bot.bot_user_id, text: 'hello' });
        attempt = s.dispatcher.tick();
        await held.arrived;
        // The first attempt is out to the old URL when the owner moves the bot to the new one.
        await setWebhook(after.url);
        held.release(500);
        assert.equal(await attempt, 1);
        attempt = undefined;
        const [failedOne] = await s.developers.deliveries(owner.user_id, bot.bot_user_id);
        assert.ok(failedOne?.state === 'failed', 'the attempt to the old URL failed');
        assert.equal(
          await outcome(() => run((w) => s.developers.redeliver(w, owner.user_id, bot.bot_user_id, failedOne.id))),
          'redelivered',
        );
        assert.equal(await s.dispatcher.tick(), 1);
        assert.deepEqual([before.bodies.length, after.bodies.length], [1, 1]);
      } finally {
        held.release(500);
        await attempt;
        await before.close();
        await after.close();
      }
    });
  },
  { env: { WEBHOOK_ALLOW_INSECURE: '1' } },
);

// The retention sweep (Updates kept UPDATE_RETENTION_S) deleted an Update whose attempt was still
// out; a redelivery then found it gone and queued it again from the failed attempt's copy, and
// another dispatcher sent it in parallel with that attempt. The sweep now waits for the outcome.
await describeStoresOnFakeClock(
  'an Update growing old while an attempt of it is under way',
  (t, clock) => {
    it('stays queued until the attempt ends: a redelivery meanwhile is refused, then it is dropped', async () => {
      const { s, owner, fan, bot, redeliver, other, hook } = await twoDispatchers(t(), 'Aging');
      const queued = async () =>
        (await s.db.k.selectFrom('updates').select('seq').where('bot_user_id', '=', bot.bot_user_id).execute()).length;
      let held: ReturnType<typeof hook.holdNext> | undefined;
      let attempt: Promise<number> | undefined;
      try {
        const failedOne = await failedFirstAttempt(t(), owner, fan, bot.bot_user_id, hook.url);
        const dropped = await metric(t().app, 'updates_dropped_total');

        // The retry (due after 1 s) is held by the receiver, its lease live for 90 s; 10 s on, the
        // Update is older than the 5 s retention.
        clock.advance(1_000);
        held = hook.holdNext();
        attempt = s.dispatcher.tick();
        await held.arrived;
        clock.advance(10_000);
        assert.equal(await other.tick(), 0, 'a pass of another dispatcher');
        assert.deepEqual(
          { queued: await queued(), redelivery: await redeliver(failedOne.id), posts: hook.bodies.length },
          { queued: 1, redelivery: 'delivery_in_flight', posts: 2 },
        );
        assert.equal(await metric(t().app, 'updates_dropped_total'), dropped, 'not dropped while its attempt is out');

        held.release(500);
        assert.equal(await attempt, 1);
        attempt = undefined;
        assert.equal(await other.tick(), 0, 'the failed Update is too old to try again');
        assert.deepEqual(
          { queued: await queued(), dropped: await metric(t().app, 'updates_dropped_total') },
          { queued: 0, dropped: dropped + 1 },
        );
        // Redelivered now, it is queued anew from the attempt's copy and sent once.
        hook.answer(200);
        assert.equal(await redeliver(failedOne.id), 'redelivered');
        assert.equal(await other.tick(), 1);
        assert.equal(hook.bodies.length, 3);
      } finally {
        held?.release(500);
        await attempt;
        await hook.close();
      }
    });
  },
  { env: { WEBHOOK_ALLOW_INSECURE: '1', UPDATE_RETENTION_S: '5' } },
);

// On PostgreSQL a redelivery's statements each see what has committed before them: a success that
// commits between its look for a later success and its update of the queue (the success's delete
// is what the update waits for) made the Update look gone, and it was queued again from the failed
// attempt's copy and sent a second time. The success is held here in an open transaction until
// the redelivery waits on its row.
await describePostgres(
  'redelivery racing a success',
  (t) => {
    it(
      'a success that commits while the redelivery runs is seen: refused, and nothing is queued again',
      {
        timeout: 30_000,
      },
      async () => {
        const s = t().services;
        const [owner, fan] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
        const bot = await createBot(t().app, owner.user_id, 'Raced');
        const hook = await holdingReceiver(500);
        let success: HeldTransaction | undefined;
        try {
          const failedOne = await failedFirstAttempt(t(), owner, fan, bot.bot_user_id, hook.url);
          const queued = () =>
            s.db.k.selectFrom('updates').select('seq').where('bot_user_id', '=', bot.bot_user_id).execute();

          // What the dispatcher's success writes: the attempt, and the Update taken off the queue.
          success = await holdTransaction(s.db.k, async (tx) => {
            await tx.deleteFrom('updates').where('bot_user_id', '=', bot.bot_user_id).execute();
            await tx
              .insertInto('webhook_deliveries')
              .values({
                bot_user_id: bot.bot_user_id,
                update_id: failedOne.update_id,
                url: hook.url,
                attempt: 2,
                status_code: 200,
                error: null,
                duration_ms: 1,
                created_at: s.clock.now(),
                payload: null,
              })
              .execute();
          });
          const redelivery = tracked(
            outcome(() => s.work.run((w) => s.developers.redeliver(w, owner.user_id, bot.bot_user_id, failedOne.id))),
          );
          // Until a statement waits on the success's transaction: the redelivery's update of the queue,
          // on the row the success deleted (or, if it never does, until the redelivery has ended).
          assert.equal(
            await blockedBy(s.db.k, success.pid, redelivery.settled),
            true,
            'the redelivery waited on the success',
          );
          await success.end();
          assert.equal(await redelivery.promise, 'delivery_not_failed');
          assert.deepEqual(await queued(), []);
        } finally {
          // Whatever failed, the success's transaction ends, so the app can close its pool.
          await success?.end();
          await hook.close();
        }
      },
    );
  },
  { clock: new FakeClock(), env: { WEBHOOK_ALLOW_INSECURE: '1' } },
);
