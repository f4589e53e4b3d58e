// Token buckets: the same behaviour in memory and in Redis, and Redis buckets shared by instances.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import {
  MemoryRateLimiter,
  RedisRateLimiter,
  rateLimitedError,
  retryAfterSeconds,
  type RateLimiter,
} from './rate-limit.js';
import { REDIS_URL, redisUnderTest } from '../../test/helpers/stores.js';

const T0 = Date.UTC(2026, 0, 1);

const redisUp = await redisUnderTest('Redis limiter tests');

/** A key no other test (or earlier run) uses. */
const fresh = (name: string) => `test:${randomBytes(8).toString('hex')}:${name}`;

async function takeN(
  l: RateLimiter,
  key: string,
  n: number,
  bucket: { perSecond: number; burst: number },
  now: number,
) {
  const oks: boolean[] = [];
  for (let i = 0; i < n; i++) oks.push((await l.take(key, bucket, now)).ok);
  return oks;
}

/** The behaviour both limiters must have. */
function behaves(name: string, limiter: () => RateLimiter, skip: false | string = false): void {
  describe(`${name} token bucket`, { skip }, () => {
    it('allows a burst, then refuses with the time until the next token', async () => {
      const l = limiter();
      const key = fresh('burst');
      const bucket = { perSecond: 1, burst: 5 };
      assert.deepEqual(await takeN(l, key, 6, bucket, T0), [true, true, true, true, true, false]);
      assert.deepEqual(await l.take(key, bucket, T0), { ok: false, retryAfterMs: 1000 });
      assert.deepEqual(await l.take(key, bucket, T0 + 400), { ok: false, retryAfterMs: 600 });
    });

    it('refills at the rate, never above the burst', async () => {
      const l = limiter();
      const key = fresh('refill');
      const bucket = { perSecond: 2, burst: 3 };
      assert.deepEqual(await takeN(l, key, 4, bucket, T0), [true, true, true, false]);
      assert.equal((await l.take(key, bucket, T0 + 499)).ok, false, 'not yet a whole token');
      assert.equal((await l.take(key, bucket, T0 + 500)).ok, true, 'one token after 1/rate');
      assert.equal((await l.take(key, bucket, T0 + 500)).ok, false);
      // A long quiet spell refills to the burst only.
      assert.deepEqual(await takeN(l, key, 4, bucket, T0 + 3_600_000), [true, true, true, false]);
    });

    it('a slow bucket (20 per minute) tells a 3 s wait', async () => {
      const l = limiter();
      const key = fresh('group');
      const bucket = { perSecond: 20 / 60, burst: 20 };
      assert.equal((await takeN(l, key, 20, bucket, T0)).every(Boolean), true);
      const refused = await l.take(key, bucket, T0);
      assert.equal(refused.ok, false);
      assert.equal(refused.retryAfterMs, 3000);
      assert.equal((await l.take(key, bucket, T0 + 2999)).ok, false);
      assert.equal((await l.take(key, bucket, T0 + 3000)).ok, true);
    });

    it('keys are independent', async () => {
      const l = limiter();
      const [k1, k2] = [fresh('one'), fresh('two')];
      const bucket = { perSecond: 1, burst: 1 };
      assert.equal((await l.take(k1, bucket, T0)).ok, true);
      assert.equal((await l.take(k1, bucket, T0)).ok, false);
      assert.equal((await l.take(k2, bucket, T0)).ok, true);
    });
  });
}

behaves('memory', () => new MemoryRateLimiter());

const connections: Redis[] = [];
const connect = (): Redis => {
  const r = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  connections.push(r);
  return r;
};
after(async () => {
  for (const r of connections) {
    const keys = await r.keys('rl:test:*');
    if (keys.length > 0) await r.del(...keys);
    r.disconnect();
  }
});

behaves('Redis', () => new RedisRateLimiter(connect()), redisUp ? false : 'Redis unreachable');

describe('Redis token bucket shared by instances', { skip: redisUp ? false : 'Redis unreachable' }, () => {
  it('two limiters on two connections take from one bucket', async () => {
    const one = new RedisRateLimiter(connect());
    const two = new RedisRateLimiter(connect());
    const key = fresh('shared');
    const bucket = { perSecond: 1, burst: 4 };
    assert.deepEqual(
      [
        (await one.take(key, bucket, T0)).ok,
        (await two.take(key, bucket, T0)).ok,
        (await one.take(key, bucket, T0)).ok,
        (await two.take(key, bucket, T0)).ok,
      ],
      [true, true, true, true],
    );
    assert.deepEqual(await one.take(key, bucket, T0), { ok: false, retryAfterMs: 1000 });
    assert.deepEqual(await two.take(key, bucket, T0), { ok: false, retryAfterMs: 1000 });
    assert.equal((await two.take(key, bucket, T0 + 1000)).ok, true, 'the refill is shared too');
    assert.equal((await one.take(key, bucket, T0 + 1000)).ok, false);
  });

  it('concurrent takes never hand out more than the burst', async () => {
    const limiters = [new RedisRateLimiter(connect()), new RedisRateLimiter(connect())];
    const key = fresh('race');
    const bucket = { perSecond: 1, burst: 10 };
    const takes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (limiters[i % 2] as RedisRateLimiter).take(key, bucket, T0)),
    );
    assert.equal(takes.filter((t) => t.ok).length, 10);
  });

  it('memory limiters, by contrast, are per instance', () => {
    const [one, two] = [new MemoryRateLimiter(), new MemoryRateLimiter()];
    const key = fresh('local');
    const bucket = { perSecond: 1, burst: 1 };
    assert.equal(one.take(key, bucket, T0).ok, true);
    assert.equal(two.take(key, bucket, T0).ok, true);
  });
});

it('Retry-After is whole seconds, at least 1, and the 429 carries it', () => {
  assert.deepEqual([0, 1, 10, 999, 1000, 1001, 2500].map(retryAfterSeconds), [1, 1, 1, 1, 1, 2, 3]);
  const e = rateLimitedError({ ok: false, retryAfterMs: 2500 });
  assert.equal(e.def.status, 429);
  assert.deepEqual(e.headers, { 'retry-after': '3' });
});
