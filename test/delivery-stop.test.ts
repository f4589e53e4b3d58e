// Stopping while a webhook receiver never answers: the delivery in flight is abandoned after the
// dispatcher's short grace (it used to hold the shutdown for the whole 10 s webhook timeout and lose to the forced exit),
// recorded as a failed attempt, and due again at once, so the next process does not wait out a lease.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { FakeClock, startTestApp } from './helpers/app.js';
import { botCall, result, say } from './helpers/delivery.js';
import { createBot, createUsers, type TestUser } from './helpers/factories.js';
import { storesUnderTest } from './helpers/stores.js';

/**
 * Far below the 10 s webhook timeout (the dispatcher waits 1 s for answers under way); the run is
 * bounded above it, so a regression fails, not hangs.
 */
const STOP_WITHIN_MS = 5_000;

for (const store of await storesUnderTest()) {
  describe(`webhook delivery: stop with a receiver that never answers [${store}]`, () => {
    it('abandons the delivery in flight, records it and leaves the Update due', { timeout: 30_000 }, async () => {
      const sockets: Socket[] = [];
      const silent = createServer((socket) => sockets.push(socket));
      silent.listen(0, '127.0.0.1');
      await once(silent, 'listening');
      const address = silent.address();
      assert.ok(address !== null && typeof address === 'object', 'listening on a port');
      const clock = new FakeClock();
      const t = await startTestApp(store, { env: { WEBHOOK_ALLOW_INSECURE: '1' }, clock });
      try {
        const [owner, alice] = (await createUsers(t.app, 2)) as [TestUser, TestUser];
        const bot = await createBot(t.app, owner.user_id, 'stop bot');
        const url = `http://127.0.0.1:${address.port}/hook`;
        result(await botCall(t.app, 'setWebhook', bot.api_key, { url }));
        t.services.dispatcher.start();
        const connected = once(silent, 'connection');
        await say(t.app, { from: alice.user_id, to: bot.bot_user_id, text: 'hello' });
        await connected;

        const began = performance.now();
        await t.services.dispatcher.stop();
        const took = performance.now() - began;
        assert.ok(took < STOP_WITHIN_MS, `stop() took ${Math.round(took)} ms`);

        const updates = await t.services.db.k
          .selectFrom('updates')
          .select(['attempts', 'next_attempt_at', 'last_error'])
          .where('bot_user_id', '=', bot.bot_user_id)
          .execute();
        assert.deepEqual(updates, [
          { attempts: 1, next_attempt_at: clock.now(), last_error: 'no answer before the platform stopped' },
        ]);
        const attempts = await t.services.db.k
          .selectFrom('webhook_deliveries')
          .select(['attempt', 'status_code', 'error', 'url'])
          .where('bot_user_id', '=', bot.bot_user_id)
          .execute();
        assert.deepEqual(attempts, [
          { attempt: 1, status_code: null, error: 'no answer before the platform stopped', url },
        ]);
      } finally {
        await t.services.dispatcher.stop();
        await t.close();
        for (const s of sockets) s.destroy();
        silent.close();
      }
    });
  });
}
