// The OpenAPI document (issue 18): every operation has a summary, its security, and examples of
// its request and response that validate against its own schemas; pages are not operations.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describeStores } from './helpers/app.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Operation {
  id: string;
  op: Json;
}

function operations(doc: Json): Operation[] {
  assert.ok(isObject(doc.paths), 'paths');
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    isObject(item)
      ? Object.entries(item).flatMap(([method, op]) => (isObject(op) ? [{ id: `${method} ${path}`, op }] : []))
      : [],
  );
}

/** Each media type's schema with its example. */
function examples(content: unknown): { schema: unknown; example: unknown }[] {
  if (!isObject(content)) return [];
  return Object.values(content).flatMap((m) => (isObject(m) ? [{ schema: m.schema, example: m.example }] : []));
}

await describeStores('OpenAPI document', (t) => {
  const load = async (): Promise<Json> => {
    const res = await t().app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    return res.json<Json>();
  };

  it('lists API operations only: no developer-site forms, no /metrics', async () => {
    const ids = operations(await load()).map((o) => o.id);
    assert.ok(ids.length > 40, `operations: ${ids.length}`);
    assert.deepEqual(
      ids.filter((id) => / \/(developers|metrics)/.test(id)),
      [],
    );
    assert.ok(ids.includes('post /openapi/bot/sendMessage'), 'bot methods are operations');
  });

  it('gives every operation a summary and its security; operator routes need the bearer token', async () => {
    const doc = await load();
    const schemes = Object.keys((doc.components as { securitySchemes: Json }).securitySchemes);
    for (const { id, op } of operations(doc)) {
      assert.equal(typeof op.summary, 'string', `${id}: summary`);
      assert.ok(Array.isArray(op.security), `${id}: security`);
      for (const requirement of op.security as unknown[]) {
        assert.ok(isObject(requirement), `${id}: requirement`);
        for (const name of Object.keys(requirement)) assert.ok(schemes.includes(name), `${id}: unknown scheme ${name}`);
      }
      if (id.includes(' /internal/')) assert.deepEqual(op.security, [{ operator: [] }], id);
      if (id.includes(' /openapi/') && !id.includes('/oauth2/') && !id.includes('/payment/')) {
        assert.ok((op.security as unknown[]).length > 0, `${id}: /openapi/ operations authenticate`);
      }
    }
  });

  it('gives every parameter, request body and response an example that fits its schema', async () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    for (const { id, op } of operations(await load())) {
      for (const p of Array.isArray(op.parameters) ? op.parameters : []) {
        assert.ok(isObject(p) && 'example' in p, `${id}: parameter example`);
        assert.ok(ajv.validate(p.schema as Json, p.example), `${id} ${String(p.name)}: ${ajv.errorsText()}`);
      }
      const body = isObject(op.requestBody) ? examples(op.requestBody.content) : [];
      for (const { schema, example } of body) {
        assert.notEqual(example, undefined, `${id}: request example`);
        assert.ok(ajv.validate(schema as Json, example), `${id} request: ${ajv.errorsText()}`);
      }
      const responses = isObject(op.responses) ? op.responses : {};
      const success = Object.keys(responses).filter((code) => code.startsWith('2'));
      assert.ok(success.length > 0, `${id}: a success response`);
      for (const code of Object.keys(responses)) {
        for (const { schema, example } of examples((responses[code] as Json).content)) {
          assert.notEqual(example, undefined, `${id} ${code}: response example`);
          assert.ok(ajv.validate(schema as Json, example), `${id} ${code}: ${ajv.errorsText()}`);
        }
      }
    }
  });
});
