import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { it } from 'node:test';
import { MemoryNonceStore } from './shared-state.js';

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
