import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Type } from 'typebox';
import { namedFields } from './named.js';

const schema = Type.Object({
  id: Type.String(),
  ids: Type.Array(Type.String()),
  inner: Type.Optional(Type.Object({ a: Type.String() })),
  list: Type.Optional(Type.Array(Type.Object({ b: Type.String() }))),
});
const pick = namedFields(schema);

it('returns the value itself when it holds only named fields (no copy on the hot path)', () => {
  const value = { id: 'x', ids: ['a'], inner: { a: 'y' }, list: [{ b: 'z' }] };
  assert.equal(pick(value), value);
});

it('leaves out unnamed fields at every depth, and only copies what changed', () => {
  const list = [{ b: 'z' }];
  const value = { id: 'x', ids: ['a'], extra: 1, inner: { a: 'y', more: 2 }, list };
  const picked = pick(value);
  assert.deepEqual(picked, { id: 'x', ids: ['a'], inner: { a: 'y' }, list: [{ b: 'z' }] });
  assert.notEqual(picked, value);
  assert.equal((picked as { list: unknown }).list, list, 'an unchanged part is kept as it is');
  assert.deepEqual(pick({ id: 'x', ids: [], list: [{ b: 'z', c: 3 }] }), { id: 'x', ids: [], list: [{ b: 'z' }] });
});
