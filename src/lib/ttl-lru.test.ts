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

it('drops entries whose value matches', () => {
  const cache = new TtlCache<string>(60_000, 10, () => 0);
  for (const [k, v] of [
    ['a', 'x'],
    ['b', 'y'],
    ['c', 'x'],
  ] as const)
    cache.set(k, v);
  cache.deleteWhere((v) => v === 'x');
  assert.deepEqual([...cache.keys()].sort(), ['b']);
});
