import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
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

it('holds many keys in one slot (the table grows) and still refuses every repeat', () => {
  const store = new MemoryNonceStore();
  const now = 2_000_000_000;
  const keys = Array.from({ length: 20_000 }, (_, i) => digest(`k${i}`));
  for (const k of keys) assert.equal(store.claim(k, now + 300_000, now), true);
  for (const k of keys) assert.equal(store.claim(k, now + 300_000, now), false);
});

it('seen tells a claimed key from a new one, and records nothing', () => {
  const store = new MemoryNonceStore();
  const now = 3_000_000_000;
  const [k1, k2] = [digest('seen-1'), digest('seen-2')];
  assert.equal(store.seen(k1, now + 300_000), false);
  assert.equal(store.seen(k1, now + 300_000), false, 'looking records nothing');
  assert.equal(store.claim(k1, now + 300_000, now), true);
  assert.equal(store.seen(k1, now + 300_000), true);
  assert.equal(store.seen(k2, now + 300_000), false);
  assert.equal(store.claim(k2, now + 300_000, now), true, 'a key looked at is still claimed once');
});

describe('Redis nonce store', { skip: redisUp ? false : 'Redis unreachable' }, () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  after(() => {
    redis.disconnect();
  });

  it('claims a key once, and seen tells it without recording', async () => {
    const store = new RedisNonceStore(redis);
    const now = Date.now();
    const [k1, k2] = [randomBytes(20), randomBytes(20)];
    assert.equal(await store.seen(k1), false);
    assert.equal(await store.claim(k1, now + 5_000, now), true);
    assert.equal(await store.claim(k1, now + 5_000, now), false);
    assert.equal(await store.seen(k1), true);
    assert.equal(await store.seen(k2), false);
    assert.equal(await store.claim(k2, now + 5_000, now), true);
  });
});
