// A Redis that stops answering without closing the connection (SIGSTOP, a dead peer behind a live
// proxy): each command fails after the command timeout and the shared state answers from this
// instance's memory, where sends used to hang forever.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { openSharedState, type SharedState } from '../src/lib/shared-state.js';
import { freePort, startRedis, type Proc } from './helpers/process.js';

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

describe('Redis frozen while running', { skip: !hasRedisServer && 'redis-server not installed' }, () => {
  let redis: Proc | undefined;
  let shared: SharedState | undefined;
  after(async () => {
    redis?.child.kill('SIGCONT');
    await shared?.close();
    await redis?.stop();
  });

  // Bounded well below "forever", above a few command timeouts.
  it('nonce claims answer from memory', { timeout: 20_000 }, async () => {
    redis = await startRedis(await freePort());
    const port = /port (\d+)/.exec(redis.child.spawnargs.join(' '))?.[1] ?? '';
    shared = await openSharedState(`redis://127.0.0.1:${port}`);
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
