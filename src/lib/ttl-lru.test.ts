// The caches evict the least recently used entry (a FIFO cache would drop the hot one), expire
// entries on the injected clock, and drop entries by value.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { TtlCache } from './ttl-lru.js';

it('evicts the least recently used entry, not the oldest one', () => {
  const cache = new TtlCache<string>(60_000, 2, () => 0);
  cache.set('hot', 'a');
  cache.set('cold', 'b');
  assert.equal(cache.get('hot'), 'a'); // read: now the most recently used
  cache.set('new', 'c');
  assert.deepEqual([cache.get('hot'), cache.get('cold'), cache.get('new')], ['a', undefined, 'c']);
});

it('expires entries on the injected clock, exactly at the TTL', () => {
  let now = 1_000;
  const cache = new TtlCache<number>(500, 10, () => now);
  cache.set('k', 1);
  now += 499;
  assert.equal(cache.get('k'), 1);
  now += 2;
  assert.equal(cache.get('k'), undefined);
});

it('drops the entries of a group, and an entry leaves its group however it leaves the cache', () => {
  let now = 1_000; // lru-cache takes a start time of 0 for "no TTL"
  const cache = new TtlCache<{ user: string; n: number }>(
    1_000,
    3,
    () => now,
    (v) => v.user,
  );
  cache.set('a1', { user: 'a', n: 1 });
  cache.set('a2', { user: 'a', n: 2 });
  cache.set('b1', { user: 'b', n: 1 });
  cache.deleteGroup('a');
  assert.deepEqual([...cache.keys()], ['b1']);
  // Replaced by a value of another group: dropping its old group leaves it.
  cache.set('b1', { user: 'c', n: 1 });
  cache.deleteGroup('b');
  assert.deepEqual([...cache.keys()], ['b1']);
  cache.deleteGroup('c');
  assert.deepEqual([...cache.keys()], []);
  // Evicted (least recently used), deleted, expired: none is left in a group to be dropped again.
  for (const k of ['x1', 'x2', 'x3']) cache.set(k, { user: 'x', n: 0 });
  now += 500;
  cache.set('x4', { user: 'x', n: 0 });
  cache.delete('x2');
  now += 501;
  assert.equal(cache.get('x3'), undefined);
  cache.set('y1', { user: 'y', n: 0 });
  assert.deepEqual(groupsOf(cache), { x: ['x4'], y: ['y1'] });
  // Dropping an unknown group, or one already empty, does nothing.
  cache.deleteGroup('nobody');
  cache.deleteGroup('a');
  assert.deepEqual([...cache.keys()].sort(), ['x4', 'y1']);
});

/** The cache's index of groups, as plain data (its private field, read for the test). */
function groupsOf(cache: object): Record<string, string[]> {
  const groups: unknown = Reflect.get(cache, 'groups');
  assert.ok(groups instanceof Map, 'a grouped cache keeps its groups in a Map');
  return Object.fromEntries(
    [...groups].map(([g, keys]) => [String(g), keys instanceof Set ? [...keys].map(String) : []]),
  );
}

it('caches what a read found, unless an entry was dropped while it read', async () => {
  const cache = new TtlCache<string>(60_000, 10, () => 1_000);
  assert.equal(await cache.getOrRead('a', () => Promise.resolve('old a')), 'old a');
  assert.equal(cache.get('a'), 'old a');
  // A change announced during the read (the row it saw may be older than the change): not cached.
  let finish = (_: string) => {};
  const reading = cache.getOrRead('b', () => new Promise<string>((resolve) => (finish = resolve)));
  cache.delete('b');
  finish('old b');
  assert.equal(await reading, 'old b');
  assert.equal(cache.get('b'), undefined);
  // Nothing found is never cached; the next read asks again.
  assert.equal(await cache.getOrRead('c', () => Promise.resolve(undefined)), undefined);
  assert.equal(await cache.getOrRead('c', () => Promise.resolve('c')), 'c');
  assert.equal(cache.get('c'), 'c');
});

it('clear (announcements missed) drops every entry and group, and a read it overtook is not cached', async () => {
  const cache = new TtlCache<{ user: string }>(
    60_000,
    10,
    () => 1_000,
    (v) => v.user,
  );
  cache.set('a1', { user: 'a' });
  let finish = (_: { user: string }) => {};
  const reading = cache.getOrRead('b1', () => new Promise((resolve) => (finish = resolve)));
  cache.clear();
  finish({ user: 'b' });
  assert.deepEqual(await reading, { user: 'b' });
  assert.deepEqual([...cache.keys()], []);
  assert.deepEqual(groupsOf(cache), {});
});
