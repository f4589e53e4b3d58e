// RedisBus's gaps, against in-process fakes of its connections: pub/sub keeps nothing, so whatever
// an instance may have missed while Redis was lost is told as a gap, here and on other instances.
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { it } from 'node:test';
import { fakeInstance, FakeRedis } from '../../test/helpers/fake-redis.js';
import { Invalidations } from './invalidation.js';
import type { Bus } from './shared-state.js';

/** Counts the bus's gaps; `reach(n)` resolves once there were n. */
function gaps(bus: Bus, log?: string[]) {
  const events = new EventEmitter();
  const seen = {
    count: 0,
    async reach(n: number): Promise<void> {
      while (seen.count < n) await once(events, 'gap');
    },
  };
  bus.onGap(() => {
    seen.count++;
    log?.push('gap');
    events.emit('gap');
  });
  return seen;
}

it('a subscriber back after a loss subscribes again, then tells a gap; its first connection tells none', async () => {
  const redis = new FakeRedis();
  const here = await fakeInstance(redis, 'here');
  const there = await fakeInstance(redis, 'there');
  const heard: string[] = [];
  here.bus.subscribe('ch', (m) => heard.push(m));
  await here.sub.last;
  const seen = gaps(here.bus, redis.log);

  here.sub.lose();
  there.bus.publish('ch', 'missed');
  here.sub.ready();
  await seen.reach(1);
  there.bus.publish('ch', 'heard');
  await there.pub.published(2);

  assert.deepEqual(redis.log, [
    'here subscribed bus:gap',
    'here subscribed bus:gap',
    'there subscribed bus:gap',
    'there subscribed bus:gap',
    'here subscribed ch',
    'here subscribed bus:gap,ch',
    'gap',
  ]);
  assert.equal(seen.count, 1);
  assert.deepEqual(heard, ['heard']);
});

it('a message published while Redis is lost reaches this instance only; the publisher back sends bus:gap before the next one', async () => {
  const redis = new FakeRedis();
  const here = await fakeInstance(redis, 'here');
  const there = await fakeInstance(redis, 'there');
  const heard = { here: [] as string[], there: [] as string[] };
  here.bus.subscribe('ch', (m) => heard.here.push(m));
  there.bus.subscribe('ch', (m) => heard.there.push(m));
  const seen = { here: gaps(here.bus), there: gaps(there.bus) };

  here.link.lose();
  here.pub.up = false;
  here.bus.publish('ch', 'local');
  assert.deepEqual(heard, { here: ['local'], there: [] });
  assert.deepEqual(redis.published, []);

  here.pub.ready();
  await seen.there.reach(1);
  here.link.back();
  here.bus.publish('ch', 'after');
  await here.pub.published(2);
  assert.deepEqual(redis.published, ['bus:gap ', 'ch after']);
  assert.deepEqual(heard, { here: ['local', 'after'], there: ['after'] });
  // Here: its own link's return, and its own bus:gap through Redis.
  assert.deepEqual([seen.here.count, seen.there.count], [2, 1]);
});

it('the link lost while the publisher was not: its return sends bus:gap at once', async () => {
  const redis = new FakeRedis();
  const here = await fakeInstance(redis, 'here');
  const there = await fakeInstance(redis, 'there');
  const seen = gaps(there.bus);
  here.link.lose();
  here.bus.publish('ch', 'local');
  here.link.back();
  await seen.reach(1);
  assert.deepEqual(redis.published, ['bus:gap ']);
  assert.equal(seen.count, 1);
});

it('a publish that failed with the link up: the gap goes out with the next message, before it', async () => {
  const redis = new FakeRedis();
  const here = await fakeInstance(redis, 'here');
  const there = await fakeInstance(redis, 'there');
  const heard: string[] = [];
  here.bus.subscribe('ch', (m) => heard.push(m));
  const seen = gaps(there.bus);
  here.pub.up = false;
  here.bus.publish('ch', 'local');
  // Back without a ready the bus heard after the failure (it came while the publish was failing).
  await new Promise<void>((resolve) => {
    here.bus.subscribe('ch', () => {
      resolve();
    });
  });
  here.pub.up = true;
  here.bus.publish('ch', 'next');
  await here.pub.published(2);
  assert.deepEqual(redis.published, ['bus:gap ', 'ch next']);
  assert.deepEqual(heard, ['local', 'next']);
  assert.equal(seen.count, 1);
});

it("an instance hearing bus:gap runs its Invalidations' clear; the key it missed is never delivered", async () => {
  const redis = new FakeRedis();
  const here = await fakeInstance(redis, 'here');
  const there = await fakeInstance(redis, 'there');
  const record = (invalidations: Invalidations) => {
    const r = { keys: [] as string[], clears: 0 };
    invalidations.listen(
      (key) => r.keys.push(key),
      () => r.clears++,
    );
    return r;
  };
  const a = record(new Invalidations(here.bus));
  const b = record(new Invalidations(there.bus));
  const seen = gaps(there.bus);

  here.link.lose();
  new Invalidations(here.bus).announce(['app:7']);
  here.link.back();
  await seen.reach(1);
  assert.deepEqual(b, { keys: [], clears: 1 });
  // The sender clears on its link's return, and hears its own bus:gap too (Redis hands it to every
  // subscriber).
  assert.deepEqual(a, { keys: ['app:7'], clears: 2 });
});

it('an instance whose link comes back clears its caches at once, though it published nothing meanwhile', async () => {
  const redis = new FakeRedis();
  const here = await fakeInstance(redis, 'here');
  const seen = gaps(here.bus);
  here.link.lose();
  assert.equal(seen.count, 0);
  here.link.back();
  await seen.reach(1);
  assert.deepEqual(redis.published, [], 'nothing to tell the others');
});

it('a fresh bus sends no gap (a CLI command, a start that fails); announceStart sends exactly one, which clears the others', async () => {
  const redis = new FakeRedis();
  const there = await fakeInstance(redis, 'there');
  const cleared = { count: 0 };
  new Invalidations(there.bus).listen(
    () => undefined,
    () => cleared.count++,
  );
  const seen = gaps(there.bus);
  // The restarted instance, booted and connected: nothing goes out until it serves.
  const here = await fakeInstance(redis, 'here');
  here.pub.ready();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(redis.published, [], 'a boot alone tells nothing');
  assert.equal(seen.count, 0);

  here.bus.announceStart();
  await seen.reach(1);
  assert.deepEqual(redis.published, ['bus:gap ']);
  assert.deepEqual([seen.count, cleared.count], [1, 1], "there's caches forget");
  // Once only: the next message goes out without another.
  here.bus.publish('ch', 'next');
  await here.pub.published(2);
  assert.deepEqual(redis.published, ['bus:gap ', 'ch next']);
  assert.equal(seen.count, 1);
});

it('announceStart while the publisher is lost: the gap goes out once it is back', async () => {
  const redis = new FakeRedis();
  const there = await fakeInstance(redis, 'there');
  const seen = gaps(there.bus);
  const here = await fakeInstance(redis, 'here');
  here.pub.up = false;
  here.bus.announceStart();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(redis.published, []);
  here.pub.ready();
  await seen.reach(1);
  assert.deepEqual(redis.published, ['bus:gap ']);
});
