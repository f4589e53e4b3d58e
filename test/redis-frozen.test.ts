// A Redis that stops answering without closing the connection (SIGSTOP, a dead peer behind a live
// proxy): each command fails after the command timeout and the shared state answers from this
// instance's memory, where sends used to hang forever.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import type { LinkTimings } from '../src/lib/redis-link.js';
import { openSharedState, type SharedState } from '../src/lib/shared-state.js';
import { freePort, startRedis, type Proc } from './helpers/process.js';

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

/** Starts a private Redis and the shared state on it, for one suite: thawed and stopped after it. */
function privateRedis() {
  let redis: Proc | undefined;
  let shared: SharedState | undefined;
  after(async () => {
    redis?.child.kill('SIGCONT');
    await shared?.close();
    await redis?.stop();
  });
  return async (timings?: LinkTimings): Promise<{ redis: Proc; shared: SharedState }> => {
    redis = await startRedis(await freePort());
    const port = /port (\d+)/.exec(redis.child.spawnargs.join(' '))?.[1] ?? '';
    shared = await openSharedState(`redis://127.0.0.1:${port}`, timings);
    return { redis, shared };
  };
}

describe('Redis frozen while running', { skip: !hasRedisServer && 'redis-server not installed' }, () => {
  const start = privateRedis();

  // Bounded well below "forever", above a few command timeouts.
  it('nonce claims answer from memory', { timeout: 20_000 }, async () => {
    const { redis, shared } = await start();
    await shared.redis?.connected(10_000);
    const now = Date.now();
    // Keys are digests: the memory store tells them apart by their first 52 bits.
    const [seen, fresh] = [randomBytes(32), randomBytes(32)];
    assert.equal(await shared.nonces.claim(seen, now + 60_000, now), true, 'claimed in Redis');
    assert.equal(await shared.nonces.claim(seen, now + 60_000, now), false, 'Redis remembers it');

    redis.child.kill('SIGSTOP');
    // Memory has not seen `seen`: true proves the answer came from the fallback.
    assert.equal(await shared.nonces.claim(seen, now + 60_000, now), true, 'memory answers');
    assert.equal(await shared.nonces.claim(fresh, now + 60_000, now), true);
  });
});

describe(
  'Redis frozen: the link is lost after one timeout',
  { skip: !hasRedisServer && 'redis-server not installed' },
  () => {
    const start = privateRedis();

    it('later commands fall back without being sent; a PING answered brings it back', { timeout: 20_000 }, async () => {
      // The probe interval is the only real wait here: shortened, as is the first command's timeout.
      const { redis, shared } = await start({ commandTimeoutMs: 200, probeIntervalMs: 50 });
      const link = shared.redis;
      assert.ok(link, 'REDIS_URL opens a link');
      await link.connected(10_000);
      const changes: [boolean, string][] = [];
      link.onChange((up, detail) => changes.push([up, detail]));
      // Every command sent on the main connection but the probe's PINGs.
      const sent: string[] = [];
      const send = link.redis.sendCommand.bind(link.redis);
      link.redis.sendCommand = (command, stream) => {
        if (command.name !== 'ping') sent.push(command.name);
        return send(command, stream);
      };
      const now = Date.now();
      const [first, during] = [randomBytes(32), randomBytes(32)];

      redis.child.kill('SIGSTOP');
      assert.equal(await shared.nonces.claim(first, now + 60_000, now), true, 'memory answers the timed-out claim');
      assert.equal(link.up, false, 'the timeout marked the link lost');
      assert.deepEqual(changes, [[false, 'a command timed out']]);
      assert.equal(await link.answers(1_000), false, '/readyz sees it');
      sent.length = 0;
      assert.equal(await shared.nonces.claim(during, now + 60_000, now), true);
      assert.equal((await shared.limiter.take([{ key: 'k', bucket: { perSecond: 1, burst: 1 } }], now)).ok, true);
      assert.deepEqual(sent, [], 'nothing is sent to the frozen Redis');

      const returned = new Promise<void>((resolve) =>
        link.onChange((up) => {
          if (up) resolve();
        }),
      );
      redis.child.kill('SIGCONT');
      await returned;
      assert.equal(link.up, true);
      assert.deepEqual(changes.at(-1), [true, 'answering again']);
      // Redis never saw `during`, memory did: its replay is refused there, Redis not asked.
      sent.length = 0;
      assert.equal(await shared.nonces.claim(during, now + 60_000, now), false, 'a replay of an outage claim');
      assert.deepEqual(sent, []);
      // A key memory never saw goes to Redis again.
      const back = randomBytes(32);
      assert.equal(await shared.nonces.claim(back, now + 60_000, now), true, 'Redis answers again');
      assert.equal(await shared.nonces.claim(back, now + 60_000, now), false, 'Redis remembers it');
      assert.deepEqual(sent, ['set', 'set']);
    });
  },
);
