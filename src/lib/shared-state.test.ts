import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { MemoryNonceStore, RedisNonceStore } from './shared-state.js';
import { REDIS_URL, redisUnderTest } from '../../test/helpers/stores.js';

const redisUp = await redisUnderTest('Redis nonce store tests');

const digest = (s: string) => createHash('sha1').update(s).digest();

it('claims a key once until it expires, and forgets expired slots', () => {
  const store = new MemoryNonceStore();
  const now = 1_000_000_000;
  const [k1, k2, k3] = [digest('1'), digest('2'), digest('3')];
  assert.equal(store.claim(k1, now + 300_000, now), true);
  assert.equal(store.claim(k1, now + 300_000, now + 1), false);
  assert.equal(store.claim(k2, now + 300_000, now + 1), true);
  // Much later, a claim in a new slot drops the old one; the old key would be refused by the
  // timestamp window anyway, so forgetting it is safe.
  const later = now + 400_000;
  assert.equal(store.claim(k3, later + 300_000, later), true);
  assert.equal(store.claim(k1, now + 300_000, later), true);
});

it('has answers whether a key is claimed, recording nothing, and drops what expired', () => {
  const store = new MemoryNonceStore();
  const now = 1_000_000_000;
  const [k1, k2] = [digest('1'), digest('2')];
  assert.equal(store.has(k1, now + 300_000, now), false);
  assert.equal(store.claim(k1, now + 300_000, now), true, 'has recorded nothing');
  assert.equal(store.has(k1, now + 300_000, now + 1), true);
  assert.equal(store.has(k2, now + 300_000, now + 1), false);
  // Its 10 s slot (the one holding now + 300 s) ends at now + 310 s.
  assert.equal(store.has(k1, now + 300_000, now + 309_999), true);
  assert.equal(store.has(k1, now + 300_000, now + 310_000), false);
  // The expired slot is gone, not only unanswered: the same slot starts empty again.
  assert.equal(store.claim(k1, now + 300_000, now), true);
});

it('holds many keys in one slot (the table grows) and still refuses every repeat', () => {
  const store = new MemoryNonceStore();
  const now = 2_000_000_000;
  const keys = Array.from({ length: 20_000 }, (_, i) => digest(`k${i}`));
  for (const k of keys) assert.equal(store.claim(k, now + 300_000, now), true);
  for (const k of keys) assert.equal(store.claim(k, now + 300_000, now), false);
});

it('release forgets a claimed key and only it, through collisions and growth (property)', () => {
  // Keys drawn from a small universe so that claims, releases and repeats meet, in tables that
  // grow past their first size; compared with a plain Set.
  const key = (i: number) => digest(`p${i}`);
  const now = 4_000_000_000;
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.boolean(), fc.nat(3_000)), { minLength: 4_000, maxLength: 8_000 }), (ops) => {
      const store = new MemoryNonceStore();
      const held = new Set<number>();
      for (const [claim, i] of ops) {
        if (claim) {
          assert.equal(store.claim(key(i), now + 300_000, now), !held.has(i));
          held.add(i);
        } else {
          store.release(key(i), now + 300_000);
          held.delete(i);
        }
      }
      for (let i = 0; i <= 3_000; i++) assert.equal(store.claim(key(i), now + 300_000, now), !held.has(i), `key ${i}`);
    }),
    { numRuns: 30 },
  );
});

describe('Redis nonce store', { skip: redisUp ? false : 'Redis unreachable' }, () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  after(() => {
    redis.disconnect();
  });

  it('claims a key once, and release gives it back', async () => {
    const store = new RedisNonceStore(redis);
    const now = Date.now();
    const [k1, k2] = [randomBytes(20), randomBytes(20)];
    assert.equal(await store.claim(k1, now + 5_000, now), true);
    assert.equal(await store.claim(k1, now + 5_000, now), false);
    assert.equal(await store.claim(k2, now + 5_000, now), true);
    await store.release(k1);
    assert.equal(await store.claim(k1, now + 5_000, now), true, 'released');
    assert.equal(await store.claim(k2, now + 5_000, now), false, 'the other key is still held');
  });

  it('keeps a key a minute past its expiry, for an instance whose clock is behind', async () => {
    const store = new RedisNonceStore(redis);
    const now = Date.now();
    const key = randomBytes(20);
    assert.equal(await store.claim(key, now + 1, now), true);
    const left = await redis.pttl(`nonce:${key.toString('hex')}`);
    assert.ok(left > 59_000 && left <= 60_001, `${left} ms left`);
    await store.release(key);
  });
});
