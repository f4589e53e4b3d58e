// Token buckets: the same behaviour in memory and in Redis, and Redis buckets shared by instances.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import {
  MemoryRateLimiter,
  RedisRateLimiter,
  rateLimitedError,
  retryAfterSeconds,
  type Claim,
  type RateLimiter,
  type Taken,
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
  for (let i = 0; i < n; i++) oks.push((await l.take([{ key, bucket }], now)).ok);
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
      const claim = { key, bucket };
      assert.deepEqual(await l.take([claim], T0), { ok: false, retryAfterMs: 1000, claim });
      assert.deepEqual(await l.take([claim], T0 + 400), { ok: false, retryAfterMs: 600, claim });
    });

    it('refills at the rate, never above the burst', async () => {
      const l = limiter();
      const key = fresh('refill');
      const bucket = { perSecond: 2, burst: 3 };
      assert.deepEqual(await takeN(l, key, 4, bucket, T0), [true, true, true, false]);
      assert.equal((await l.take([{ key, bucket }], T0 + 499)).ok, false, 'not yet a whole token');
      assert.equal((await l.take([{ key, bucket }], T0 + 500)).ok, true, 'one token after 1/rate');
      assert.equal((await l.take([{ key, bucket }], T0 + 500)).ok, false);
      // A long quiet spell refills to the burst only.
      assert.deepEqual(await takeN(l, key, 4, bucket, T0 + 3_600_000), [true, true, true, false]);
    });

    it('a slow bucket (20 per minute) tells a 3 s wait', async () => {
      const l = limiter();
      const key = fresh('group');
      const bucket = { perSecond: 20 / 60, burst: 20 };
      assert.equal((await takeN(l, key, 20, bucket, T0)).every(Boolean), true);
      assert.deepEqual(await l.take([{ key, bucket }], T0), { ok: false, retryAfterMs: 3000, claim: { key, bucket } });
      assert.equal((await l.take([{ key, bucket }], T0 + 2999)).ok, false);
      assert.equal((await l.take([{ key, bucket }], T0 + 3000)).ok, true);
    });

    it('a take of several buckets takes from all or from none, answering for the first empty one', async () => {
      const l = limiter();
      const chat = { key: fresh('chat'), bucket: { perSecond: 1, burst: 5 } };
      const overall = { key: fresh('send'), bucket: { perSecond: 2, burst: 2 } };
      assert.deepEqual(await l.take([chat, overall], T0), { ok: true });
      assert.deepEqual(await l.take([chat, overall], T0), { ok: true });
      for (let i = 0; i < 4; i++) {
        assert.deepEqual(await l.take([chat, overall], T0), { ok: false, retryAfterMs: 500, claim: overall });
      }
      // The refusals by the overall bucket left the chat's three tokens.
      assert.deepEqual(await takeN(l, chat.key, 4, chat.bucket, T0), [true, true, true, false]);
      // Both empty: the first claim answers.
      assert.deepEqual(await l.take([chat, overall], T0), { ok: false, retryAfterMs: 1000, claim: chat });
      assert.deepEqual(await l.take([overall, chat], T0), { ok: false, retryAfterMs: 500, claim: overall });
      // A second on, the chat has one token and the overall bucket two: one send, then the chat refuses
      // and the overall bucket keeps its second token.
      assert.deepEqual(await l.take([chat, overall], T0 + 1000), { ok: true });
      assert.deepEqual(await l.take([chat, overall], T0 + 1000), { ok: false, retryAfterMs: 1000, claim: chat });
      assert.deepEqual(await takeN(l, overall.key, 2, overall.bucket, T0 + 1000), [true, false]);
    });

    it('keys are independent', async () => {
      const l = limiter();
      const [k1, k2] = [fresh('one'), fresh('two')];
      const bucket = { perSecond: 1, burst: 1 };
      assert.equal((await l.take([{ key: k1, bucket }], T0)).ok, true);
      assert.equal((await l.take([{ key: k1, bucket }], T0)).ok, false);
      assert.equal((await l.take([{ key: k2, bucket }], T0)).ok, true);
    });
  });
}

behaves('memory', () => new MemoryRateLimiter());

/** The in-memory limiter as it would be if it never forgot a bucket: the reference for its sweep. */
class RememberingLimiter implements Pick<RateLimiter, 'take'> {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  take(claims: readonly Claim[], now: number): Taken {
    const refills = claims.map((claim) => {
      const { perSecond, burst } = claim.bucket;
      const state = this.buckets.get(claim.key) ?? { tokens: burst, at: now };
      return { claim, tokens: Math.min(burst, state.tokens + ((now - state.at) / 1000) * perSecond) };
    });
    const empty = refills.find(({ tokens }) => tokens < 1);
    if (empty !== undefined) {
      const retryAfterMs = Math.ceil(((1 - empty.tokens) / empty.claim.bucket.perSecond) * 1000);
      return { ok: false, retryAfterMs, claim: empty.claim };
    }
    for (const { claim, tokens } of refills) this.buckets.set(claim.key, { tokens: tokens - 1, at: now });
    return { ok: true };
  }
}

describe('memory token bucket forgets only what it can', () => {
  // The defaults of config.ts: a private chat, a group, a sender.
  const buckets = [
    { perSecond: 1, burst: 5 },
    { perSecond: 20 / 60, burst: 20 },
    { perSecond: 30, burst: 30 },
  ] as const;

  it('answers every take as a limiter that never forgets would (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.nat(5),
            fc.boolean(),
            fc.oneof(fc.constant(0), fc.nat(100), fc.integer({ min: 9_000, max: 12_000 }), fc.nat(70_000)),
          ),
          { maxLength: 200 },
        ),
        (takes) => {
          const [fast, reference] = [new MemoryRateLimiter(), new RememberingLimiter()];
          // A take of one key's bucket, or of it and the sender's overall bucket together, as a send's.
          const take = (key: number, withOverall: boolean, now: number) => {
            const claims = [{ key: `k${key}`, bucket: buckets[key % buckets.length] ?? buckets[0] }];
            if (withOverall) claims.push({ key: 'overall', bucket: buckets[2] });
            assert.deepEqual(fast.take(claims, now), reference.take(claims, now));
          };
          let now = T0;
          for (const [key, withOverall, wait] of takes) {
            now += wait;
            take(key, withOverall, now);
            // Drained at once, a bucket forgotten too soon would hold more tokens (or refuse for less long).
            if (wait === 0) for (let i = 0; i <= 30; i++) take(key, withOverall, now);
          }
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('forgets a bucket no sooner than it is full again, to the millisecond (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 120 }),
        fc.integer({ min: 1, max: 42 }),
        fc.oneof(fc.integer({ min: -3, max: 3 }), fc.integer({ min: -2_000, max: 2_000 })),
        (burst, perMinute, taken, off) => {
          const bucket = { perSecond: perMinute / 60, burst };
          const a = { key: 'a', bucket };
          const [fast, reference] = [new MemoryRateLimiter(), new RememberingLimiter()];
          for (let i = 0; i < taken; i++) {
            assert.deepEqual(fast.take([a], T0), reference.take([a], T0));
          }
          // Another key's take sweeps (past the sweep interval) around the moment 'a' is full again.
          const refill = (Math.min(taken, burst) / bucket.perSecond) * 1000;
          const now = T0 + Math.max(10_001, Math.round(refill) + off);
          fast.take([{ key: 'b', bucket }], now);
          for (let i = 0; i <= burst; i++) {
            assert.deepEqual(fast.take([a], now), reference.take([a], now));
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('still sweeps after the clock is set back', () => {
    const l = new MemoryRateLimiter();
    const [chat] = buckets;
    l.take([{ key: 'chat:bot:late', bucket: chat }], T0 + 3_600_000);
    for (let i = 0; i < 100; i++) l.take([{ key: `chat:bot:${i}`, bucket: chat }], T0);
    l.take([{ key: 'chat:bot:next', bucket: chat }], T0 + 10_001);
    assert.equal(l.size, 2, 'the bucket taken at the later time and the new chat');
  });

  it('a clock set back an hour neither drains a bucket nor holds it back: it refills at its rate from then', () => {
    const l = new MemoryRateLimiter();
    const [chat] = buckets;
    const a = { key: 'chat:bot:a', bucket: chat };
    const b = { key: 'chat:bot:b', bucket: chat };
    assert.equal(l.take([a], T0).ok, true);
    for (let i = 0; i < 5; i++) l.take([b], T0);
    const back = T0 - 3_600_000;
    // A bucket used just before keeps its tokens (it refilled by minus an hour: 429 for an hour).
    assert.deepEqual(l.peek(a.key, chat, back), { ok: true, retryAfterMs: 0 });
    assert.deepEqual(l.take([a], back), { ok: true });
    // A drained one is refused for its time to the next token, and has it then, not an hour later.
    assert.deepEqual(l.peek(b.key, chat, back), { ok: false, retryAfterMs: 1000 });
    assert.equal(l.take([b], back).ok, false);
    assert.deepEqual(l.peek(b.key, chat, back + 1000), { ok: true, retryAfterMs: 0 });
    assert.deepEqual(l.take([b], back + 1000), { ok: true });
    assert.equal(l.take([b], back + 1000).ok, false);
    // Full again 5 s on, as a bucket stamped at the earlier time would be.
    const oks = Array.from({ length: 6 }, () => l.take([b], back + 6000).ok);
    assert.deepEqual(oks, [true, true, true, true, true, false]);
  });

  it('takes out of order by a few seconds (clock read before a wait on Redis) give no more than rate × time + burst', () => {
    const l = new MemoryRateLimiter();
    const bucket = { perSecond: 1 / 6, burst: 1 };
    const claim = { key: 'guess:203.0.113.7', bucket };
    let allowed = 0;
    // Pairs 2 s apart answered in reverse order, every 4 s, over 118 s of clock.
    for (let base = T0; base < T0 + 120_000; base += 4000) {
      for (const now of [base + 2000, base]) if (l.take([claim], now).ok) allowed += 1;
    }
    assert.ok(allowed <= 118 / 6 + 1, `allowed ${String(allowed)}`);
  });

  it('holds a made-up key only until its bucket is full again', () => {
    const l = new MemoryRateLimiter();
    const [chat, group] = buckets;
    for (let i = 0; i < 10_000; i++) l.take([{ key: `chat:bot:${i}`, bucket: chat }], T0);
    l.take([{ key: 'group:bot:g', bucket: group }], T0);
    for (let i = 0; i < 21; i++) l.take([{ key: 'group:bot:busy', bucket: group }], T0);
    assert.equal(l.size, 10_002);
    // Past the sweep interval, each chat bucket (one token short) is full again, and so is the group
    // that gave one token (3 s); the group that gave all 20 is not (60 s).
    l.take([{ key: 'chat:bot:next', bucket: chat }], T0 + 10_001);
    assert.equal(l.size, 2, 'the busy group and the new chat');
    // The busy group kept its state: 10 s at 20 a minute refilled 3 tokens, not the burst of 20.
    const oks = Array.from({ length: 5 }, () => l.take([{ key: 'group:bot:busy', bucket: group }], T0 + 10_001).ok);
    assert.deepEqual(oks, [true, true, true, false, false]);
  });
});

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
        (await one.take([{ key, bucket }], T0)).ok,
        (await two.take([{ key, bucket }], T0)).ok,
        (await one.take([{ key, bucket }], T0)).ok,
        (await two.take([{ key, bucket }], T0)).ok,
      ],
      [true, true, true, true],
    );
    const refused = { ok: false, retryAfterMs: 1000, claim: { key, bucket } };
    assert.deepEqual(await one.take([{ key, bucket }], T0), refused);
    assert.deepEqual(await two.take([{ key, bucket }], T0), refused);
    assert.equal((await two.take([{ key, bucket }], T0 + 1000)).ok, true, 'the refill is shared too');
    assert.equal((await one.take([{ key, bucket }], T0 + 1000)).ok, false);
  });

  it('concurrent takes never hand out more than the burst', async () => {
    const limiters = [new RedisRateLimiter(connect()), new RedisRateLimiter(connect())];
    const key = fresh('race');
    const bucket = { perSecond: 1, burst: 10 };
    const takes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (limiters[i % 2] as RedisRateLimiter).take([{ key, bucket }], T0)),
    );
    assert.equal(takes.filter((t) => t.ok).length, 10);
  });

  it('concurrent takes of two buckets hand out tokens from both or neither', async () => {
    const limiters = [new RedisRateLimiter(connect()), new RedisRateLimiter(connect())];
    const chat = { key: fresh('race-chat'), bucket: { perSecond: 1, burst: 10 } };
    const overall = { key: fresh('race-send'), bucket: { perSecond: 1, burst: 4 } };
    const takes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (limiters[i % 2] as RedisRateLimiter).take([chat, overall], T0)),
    );
    assert.equal(takes.filter((t) => t.ok).length, 4);
    assert.deepEqual(await takeN(limiters[0] as RedisRateLimiter, chat.key, 7, chat.bucket, T0), [
      ...Array<boolean>(6).fill(true),
      false,
    ]);
  });

  it('instances whose clocks differ by 20 ms, taking in turn, give no more than burst + rate × elapsed', async () => {
    const [behind, ahead] = [new RedisRateLimiter(connect()), new RedisRateLimiter(connect())];
    const key = fresh('skew');
    const bucket = { perSecond: 100, burst: 100 };
    // A round-robin balancer: one take each per 5 ms for a second, the second instance's clock 20 ms ahead.
    let accepted = 0;
    for (let t = 0; t < 1000; t += 5) {
      if ((await behind.take([{ key, bucket }], T0 + t)).ok) accepted++;
      if ((await ahead.take([{ key, bucket }], T0 + t + 20)).ok) accepted++;
    }
    // At most burst + rate × elapsed (T0 to the last take at T0 + 1015 ms): 201. Exactly: one take at
    // T0, then the bucket full again at T0 + 20 (the ahead clock's first take), refilled until
    // T0 + 1015: 1 + 100 + 99.5. A rewound stamp refilled the skew on every turn: all 400 passed.
    assert.equal(accepted, 200);
  });

  it('memory limiters, by contrast, are per instance', () => {
    const [one, two] = [new MemoryRateLimiter(), new MemoryRateLimiter()];
    const key = fresh('local');
    const bucket = { perSecond: 1, burst: 1 };
    assert.equal(one.take([{ key, bucket }], T0).ok, true);
    assert.equal(two.take([{ key, bucket }], T0).ok, true);
  });
});

it('Retry-After is whole seconds, at least 1, and the 429 carries it', () => {
  assert.deepEqual([0, 1, 10, 999, 1000, 1001, 2500].map(retryAfterSeconds), [1, 1, 1, 1, 1, 2, 3]);
  const e = rateLimitedError({ ok: false, retryAfterMs: 2500 });
  assert.equal(e.def.status, 429);
  assert.deepEqual(e.headers, { 'retry-after': '3' });
});
