import assert from 'node:assert/strict';
import { it } from 'node:test';
import { keptKinds, updateKinds } from './kinds.js';

it('reads allowed_updates as Telegram does: any case, each kind once, unknown names ignored, none known is every kind', () => {
  assert.deepEqual(updateKinds(['Message', 'message', 'CALLBACK_QUERY', 'bogus', 7]), ['message', 'callback_query']);
  assert.equal(updateKinds(['messages', '']), undefined);
  assert.equal(updateKinds([]), undefined);
  assert.equal(updateKinds(undefined), undefined);
});

it('reads a kept list the same way, as stored before names were read so', () => {
  assert.deepEqual(keptKinds('["Message"]'), ['message']);
  assert.equal(keptKinds('["messages"]'), undefined);
  assert.equal(keptKinds('{"message":1}'), undefined);
  assert.equal(keptKinds(null), undefined);
});
