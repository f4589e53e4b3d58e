// Response serializers are built on first use: the answer is what fast-json-stringify builds at
// once, a schema it cannot build fails on its first answer (and every route's schemas build, which
// the eager mode checks for the whole application, validators included: test/validation.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import build, { type Schema } from 'fast-json-stringify';
import { buildApp } from '../src/app.js';
import { serializerCompiler } from '../src/http/serializer.js';
import { describeStores } from './helpers/app.js';

const schema: Schema = {
  type: 'object',
  properties: { ok: { type: 'boolean' }, n: { type: 'integer' }, s: { type: 'string' } },
  required: ['ok'],
};
const route = { schema, method: 'GET', url: '/x', httpStatus: '200' };

describe('serializerCompiler', () => {
  it('lazy and eager serializers write what fast-json-stringify writes, dropping unknown fields', () => {
    const reference = build(schema);
    for (const eager of [false, true]) {
      const serialize = serializerCompiler(eager)(route);
      for (const data of [{ ok: true, n: 3, s: 'a"b', extra: 1 }, { ok: false }]) {
        assert.equal(serialize(data), reference(data));
      }
    }
    assert.equal(serializerCompiler(false)(route)({ ok: true, extra: 1 }), '{"ok":true}');
  });

  it('a schema that cannot be built fails at once when eager, on its first answer when lazy', () => {
    const broken = { ...route, schema: { $ref: '#/definitions/missing' } };
    assert.throws(() => serializerCompiler(true)(broken));
    const lazy = serializerCompiler(false)(broken);
    assert.throws(() => lazy({}));
  });
});

await describeStores('every route schema of the application compiles', (t) => {
  it('buildApp with eager validators and serializers', async () => {
    const app = await buildApp(t().services, { eagerSchemas: true });
    await app.close();
  });
});
