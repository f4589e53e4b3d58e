import assert from 'node:assert/strict';
import { it } from 'node:test';
import { MemoryNonceStore } from './shared-state.js';

it('claims a key once until it expires, and forgets expired slots', async () => {
  const store = new MemoryNonceStore();
  const now = 1_000_000_000;
  assert.equal(await store.claim('k1', now + 300_000, now), true);
  assert.equal(await store.claim('k1', now + 300_000, now + 1), false);
  assert.equal(await store.claim('k2', now + 300_000, now + 1), true);
  // Much later, a claim in a new slot drops the old one; the old key would be refused by the
  // timestamp window anyway, so forgetting it is safe.
  const later = now + 400_000;
  assert.equal(await store.claim('k3', later + 300_000, later), true);
  assert.equal(await store.claim('k1', now + 300_000, later), true);
});
