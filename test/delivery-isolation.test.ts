// Webhook delivery under a bad receiver and a backlog (issue 13): a hanging receiver holds back
// its own bot only; the retry schedule's settings (first backoff, cap, retention) are observable;
// expiring old Updates reads an index instead of the whole table.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import { it } from 'node:test';
import { sql } from 'kysely';
import { ConfigError, loadConfig } from '../src/config.js';
import { describeStores, FakeClock } from './helpers/app.js';
import { botCall, metric, newBot, result, say, startReceiver } from './helpers/delivery.js';
import { createUsers, type TestUser } from './helpers/factories.js';

const INSECURE = { WEBHOOK_ALLOW_INSECURE: '1' };
const BOUNDED = { timeout: 20_000 };

/** A receiver that never answers: it reports each request as it arrives and keeps it open. */
async function startHangingReceiver() {
  const requests: IncomingMessage[] = [];
  const server = createServer((req) => {
    requests.push(req);
    server.emit('hung', req);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  return {
    url: `http://127.0.0.1:${address.port}/hook`,
    requests,
    /** Resolves with the next request to arrive. */
    next: async () => ((await once(server, 'hung')) as [IncomingMessage])[0],
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

await describeStores(
  'webhook delivery: a hanging receiver holds back its own bot only',
  (t) => {
    it("bot Y's update is delivered while bot X's request is still hanging", BOUNDED, async () => {
      const { app, services } = t();
      const [alice] = (await createUsers(app, 1)) as [TestUser];
      const x = await newBot(app, 'hanging bot');
      const y = await newBot(app, 'healthy bot');
      const hanging = await startHangingReceiver();
      const healthy = await startReceiver(200);
      try {
        result(await botCall(app, 'setWebhook', x.api_key, { url: hanging.url }));
        result(await botCall(app, 'setWebhook', y.api_key, { url: healthy.url }));
        services.dispatcher.start();
        const arrived = hanging.next();
        await say(app, { from: alice.user_id, to: x.bot_user_id, text: 'to x' });
        const held = await arrived;
        let xClosed = false;
        held.socket.once('close', () => {
          xClosed = true;
        });
        await say(app, { from: alice.user_id, to: y.bot_user_id, text: 'to y' });
        // Well inside the 10 s webhook timeout that would otherwise free the dispatcher.
        const [hit] = await healthy.received(1, 5_000);
        assert.ok(hit !== undefined, 'Y got its update');
        assert.equal((JSON.parse(hit.body) as { message_raw: string }).message_raw, 'to y');
        assert.equal(xClosed, false, "X's request was still hanging when Y's update arrived");
        assert.equal(hanging.requests.length, 1, 'X got one request, nothing more while it hangs');
      } finally {
        // Closing the hanging receiver ends X's attempt (a failure), so stopping does not wait 10 s.
        await hanging.close();
        await services.dispatcher.stop();
        await healthy.close();
      }
    });
  },
  { env: INSECURE },
);

const clock = new FakeClock();

await describeStores(
  'webhook delivery: retry settings',
  (t) => {
    it('WEBHOOK_RETRY_BASE_MS and WEBHOOK_RETRY_MAX_MS set the backoff; UPDATE_RETENTION_S the drop', async () => {
      const { app, services } = t();
      const tick = () => services.dispatcher.tick();
      const [alice] = (await createUsers(app, 1)) as [TestUser];
      const bot = await newBot(app, 'failing bot');
      const receiver = await startReceiver(500);
      try {
        result(await botCall(app, 'setWebhook', bot.api_key, { url: receiver.url }));
        await say(app, { from: alice.user_id, to: bot.bot_user_id, text: 'again' });
        const dropped = await metric(app, 'updates_dropped_total');
        assert.equal(await tick(), 1, 'first attempt');
        // 100 ms doubling, capped at 400 ms: attempts at 0, 100, 300, 700, 1100, 1500, 1900 ms.
        for (const [i, ms] of [100, 200, 400, 400, 400, 400].entries()) {
          clock.advance(ms - 1);
          assert.equal(await tick(), 0, `retry ${i + 1} not before ${ms} ms`);
          clock.advance(1);
          assert.equal(await tick(), 1, `retry ${i + 1} after ${ms} ms`);
        }
        clock.advance(100);
        assert.equal(await tick(), 0, 'at 2 s the Update is not due yet');
        assert.equal(await metric(app, 'updates_dropped_total'), dropped, 'kept for 2 s');
        clock.advance(1);
        assert.equal(await tick(), 0, 'older than 2 s: dropped, not tried');
        assert.equal(await metric(app, 'updates_dropped_total'), dropped + 1);
        assert.equal(receiver.hits.length, 7);
      } finally {
        await receiver.close();
      }
    });

    it('the settings are checked like the others', () => {
      for (const [name, value] of [
        ['WEBHOOK_RETRY_BASE_MS', '0'],
        ['WEBHOOK_RETRY_MAX_MS', 'soon'],
        ['UPDATE_RETENTION_S', '-5'],
      ] as const) {
        assert.throws(() => loadConfig({ [name]: value }), ConfigError, `${name}=${value}`);
      }
      const defaults = loadConfig({});
      assert.deepEqual(
        [defaults.webhookRetryBaseMs, defaults.webhookRetryMaxMs, defaults.updateRetentionS],
        [1000, 600_000, 86_400],
      );
    });
  },
  {
    clock,
    env: { ...INSECURE, WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_RETRY_MAX_MS: '400', UPDATE_RETENTION_S: '2' },
  },
);

await describeStores('webhook delivery: a backlog costs per bot', (t) => {
  it('expiring old Updates searches the created_at index, not the whole table', async () => {
    const { db } = t().services;
    const plan =
      db.dialect === 'sqlite'
        ? (
            await sql<{ detail: string }>`explain query plan delete from updates where created_at < ${1}`.execute(db.k)
          ).rows
            .map((r) => r.detail)
            .join('\n')
        : await db.k.transaction().execute(async (tx) => {
            // An empty table is cheapest to scan: ask whether the index can serve the delete at all.
            await sql`set local enable_seqscan = off`.execute(tx);
            const rows = (
              await sql<{ 'QUERY PLAN': string }>`explain delete from updates where created_at < ${1}`.execute(tx)
            ).rows;
            return rows.map((r) => r['QUERY PLAN']).join('\n');
          });
    assert.match(plan, /updates_created/, plan);
  });
});
