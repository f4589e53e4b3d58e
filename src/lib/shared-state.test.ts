import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { MemoryNonceStore, openSharedState, RedisNonceStore, type SharedState } from './shared-state.js';
import { REDIS_URL, redisTestPrefix, redisUnderTest } from '../../test/helpers/stores.js';

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

/** What a shared state's bus heard: its gaps, and the messages on `channel`. */
function ears(shared: SharedState, channel: string) {
  const heard = { gaps: 0, messages: [] as string[] };
  shared.bus.onGap(() => heard.gaps++);
  shared.bus.subscribe(channel, (m) => heard.messages.push(m));
  return heard;
}

/** Until `done()`, or fails after `ms` naming `what`. */
async function until(done: () => boolean, what: string, ms = 5_000): Promise<void> {
  for (const end = Date.now() + ms; !done(); await new Promise((r) => setTimeout(r, 10))) {
    if (Date.now() > end) assert.fail(`${what} within ${ms} ms`);
  }
}

describe('REDIS_PREFIX: a namespace for keys and channels', { skip: redisUp ? false : 'Redis unreachable' }, () => {
  const opened: SharedState[] = [];
  const raw = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  const open = async (prefix?: string) => {
    const shared = await openSharedState(REDIS_URL, prefix === undefined ? {} : { prefix });
    opened.push(shared);
    await shared.redis?.connected(5_000);
    return shared;
  };
  after(async () => {
    for (const shared of opened) await shared.close();
    raw.disconnect();
  });

  it("shared states under different prefixes hear neither the other's messages nor its gaps; under one prefix they do", async () => {
    const [mine, theirs] = [redisTestPrefix(), redisTestPrefix()];
    const channel = `ch-${randomBytes(4).toString('hex')}`;
    const other = await open(theirs);
    const otherHeard = ears(other, channel);
    const witness = await open(mine);
    const witnessHeard = ears(witness, channel);
    // Each bus hears a message of its own through Redis: its subscriptions hold from here on.
    for (const [shared, heard] of [
      [other, otherHeard],
      [witness, witnessHeard],
    ] as const) {
      shared.bus.publish(channel, 'self');
      await until(() => heard.messages.includes('self'), 'its own message came back');
    }
    const before = { other: otherHeard.gaps, witness: witnessHeard.gaps };

    // A fresh instance of `mine`, starting to serve: its bus:gap goes out under `mine` only.
    const fresh = await open(mine);
    fresh.bus.announceStart();
    await until(() => witnessHeard.gaps > before.witness, 'the same prefix heard the start-up gap');
    fresh.bus.publish(channel, 'hello');
    await until(() => witnessHeard.messages.includes('hello'), 'the same prefix heard the message');
    // Redis had dispatched the gap and 'hello' when the witness heard it, so a marker the other
    // publishes now reaches it after anything of those that was for it.
    other.bus.publish(channel, 'marker');
    await until(() => otherHeard.messages.includes('marker'), 'the other heard its marker');
    assert.deepEqual(
      otherHeard,
      { gaps: before.other, messages: ['self', 'marker'] },
      'the other prefix heard nothing',
    );

    // On the wire the channel carries the prefix; listeners see the name without it.
    const listener = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
    try {
      const wire: string[] = [];
      listener.on('message', (ch: string, m: string) => wire.push(`${ch} ${m}`));
      await listener.subscribe(`${mine}${channel}`, channel);
      fresh.bus.publish(channel, 'wire');
      fresh.bus.publish(channel, 'end');
      // Published in order on one connection: once 'end' is heard, an unprefixed copy of 'wire' would be too.
      await until(() => wire.includes(`${mine}${channel} end`), 'the prefixed channel carried both');
      assert.deepEqual(wire, [`${mine}${channel} wire`, `${mine}${channel} end`]);
    } finally {
      listener.disconnect();
    }
  });

  it('shared states under different prefixes share no nonce and no rate-limit bucket; under one prefix they do', async () => {
    const [mine, theirs] = [redisTestPrefix(), redisTestPrefix()];
    const [one, same, other] = [await open(mine), await open(mine), await open(theirs)];
    const now = Date.now();
    const key = randomBytes(20);
    assert.equal(await one.nonces.claim(key, now + 5_000, now), true);
    assert.equal(await same.nonces.claim(key, now + 5_000, now), false, 'the same prefix refuses the replay');
    assert.equal(await other.nonces.claim(key, now + 5_000, now), true, 'the other prefix has its own nonces');
    assert.equal(await raw.exists(`${mine}nonce:${key.toString('hex')}`), 1, 'kept under the prefix');
    assert.equal(await raw.exists(`nonce:${key.toString('hex')}`), 0, 'nothing outside it');

    const claim = { key: `test:${randomBytes(6).toString('hex')}`, bucket: { perSecond: 1, burst: 1 } };
    assert.equal((await one.limiter.take([claim], now)).ok, true);
    assert.equal((await same.limiter.take([claim], now)).ok, false, 'the same prefix shares the bucket');
    assert.equal((await same.limiter.peek(claim.key, claim.bucket, now)).ok, false, 'peek reads it too');
    assert.equal((await other.limiter.take([claim], now)).ok, true, 'the other prefix has its own bucket');
    assert.equal(await raw.exists(`${mine}rl:${claim.key}`), 1, "the take script's key is under the prefix");
    assert.equal(await raw.exists(`rl:${claim.key}`), 0);
    await one.nonces.release(key, now + 5_000);
    assert.equal(await raw.exists(`${mine}nonce:${key.toString('hex')}`), 0, 'released under the prefix');
  });

  it('without a prefix keys and channels keep their names, as before the setting', async () => {
    const plain = await open();
    const now = Date.now();
    const key = randomBytes(20);
    assert.equal(await plain.nonces.claim(key, now + 5_000, now), true);
    assert.equal(await raw.exists(`nonce:${key.toString('hex')}`), 1);
    await plain.nonces.release(key, now + 5_000);
    const claim = { key: `test:${randomBytes(6).toString('hex')}`, bucket: { perSecond: 1, burst: 1 } };
    assert.equal((await plain.limiter.take([claim], now)).ok, true);
    assert.equal(await raw.exists(`rl:${claim.key}`), 1);
    await raw.del(`rl:${claim.key}`);

    const channel = `test-plain-${randomBytes(4).toString('hex')}`;
    const listener = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
    try {
      const wire: string[] = [];
      listener.on('message', (ch: string, m: string) => wire.push(`${ch} ${m}`));
      await listener.subscribe(channel);
      plain.bus.publish(channel, 'plain');
      await until(() => wire.length > 0, 'the channel carried it under its own name');
      assert.deepEqual(wire, [`${channel} plain`]);
    } finally {
      listener.disconnect();
    }
  });
});
