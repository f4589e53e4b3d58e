// The OpenAPI document (issue 18): every operation has a summary, its security, and examples of
// its request and response that validate against its own schemas; pages are not operations.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { adminHeaders, describeStores } from './helpers/app.js';

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

const typeOf = (schema: unknown): unknown =>
  isObject(schema) ? (schema.type ?? (Array.isArray(schema.anyOf) ? schema.anyOf.map(typeOf) : 'any')) : undefined;

/** The JSON types of an operation's parameters by name, in one part: `query`, `path` or a body media type. */
function parameterTypes(op: Json, part: string): Record<string, unknown> {
  const types: Record<string, unknown> = {};
  for (const p of Array.isArray(op.parameters) ? op.parameters : []) {
    if (isObject(p) && p.in === part && typeof p.name === 'string') types[p.name] = typeOf(p.schema);
  }
  const media = isObject(op.requestBody) && isObject(op.requestBody.content) ? op.requestBody.content[part] : undefined;
  const properties = isObject(media) && isObject(media.schema) ? media.schema.properties : undefined;
  for (const [name, schema] of Object.entries(isObject(properties) ? properties : {})) types[name] = typeOf(schema);
  return types;
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
      // The token endpoints and revocation take app_id and app_secret as HTTP Basic credentials too.
      if (id.includes(' /openapi/oauth2/'))
        assert.deepEqual(op.security, [{ appIdQuery: [], appSecret: [] }, { clientBasic: [] }], id);
      // The Token header set, or the same access token as an RFC 6750 Bearer credential.
      if (id === 'post /openapi/user/info' || id === 'post /openapi/user/followers')
        assert.deepEqual(op.security, [{ accessToken: [] }, { accessTokenBearer: [] }], id);
      if (id.includes(' /openapi/') && !id.includes('/oauth2/') && !id.includes('/payment/')) {
        assert.ok((op.security as unknown[]).length > 0, `${id}: /openapi/ operations authenticate`);
      }
    }
  });

  it('names the Bearer access token as an http bearer scheme beside the access_token header', async () => {
    const { securitySchemes } = (await load()).components as { securitySchemes: Json };
    assert.deepEqual(securitySchemes.accessToken, {
      type: 'apiKey',
      in: 'header',
      name: 'access_token',
      description: 'Access token from the login flow (Token header set)',
    });
    assert.ok(isObject(securitySchemes.accessTokenBearer), 'accessTokenBearer');
    const { type, scheme, bearerFormat } = securitySchemes.accessTokenBearer;
    assert.deepEqual({ type, scheme, bearerFormat }, { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
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

  it('documents each event type of an event batch with its data, and its example applies', async () => {
    const op = operations(await load()).find((o) => o.id === 'post /internal/v1/events')?.op;
    const [body] = examples(isObject(op?.requestBody) ? op.requestBody.content : undefined);
    const events =
      isObject(body?.schema) && isObject(body.schema.properties) ? body.schema.properties.events : undefined;
    const variants = isObject(events) && isObject(events.items) ? events.items.anyOf : undefined;
    const types = (Array.isArray(variants) ? variants : []).map((v: unknown) =>
      isObject(v) && isObject(v.properties) && isObject(v.properties.type) ? v.properties.type.enum : undefined,
    );
    assert.deepEqual(types.flat().toSorted(), t().services.events.types.toSorted());
    const res = await t().app.inject({
      method: 'POST',
      url: '/internal/v1/events',
      headers: adminHeaders,
      payload: body?.example as Json,
    });
    assert.deepEqual([res.statusCode, res.json()], [200, { applied: 1, duplicates: 0, refused: [] }]);
  });

  it('documents the parameters of the bot methods, the token endpoints and the Telegram methods', async () => {
    const ops = new Map(operations(await load()).map(({ id, op }) => [id, op]));
    const typesOf = (id: string, part: string) => {
      const op = ops.get(id);
      assert.ok(op !== undefined, id);
      return parameterTypes(op, part);
    };
    const FORM = 'application/x-www-form-urlencoded';
    const send = typesOf('post /openapi/bot/sendMessage', FORM);
    assert.deepEqual(send, {
      chat_id: 'string',
      chat_type: ['string', 'string'],
      text: 'string',
      content: 'any',
      parse_mode: 'string',
      reply_markup: 'any',
      mention_type: ['number', 'number'],
      mention_ids: 'array',
    });
    // Form and JSON bodies alike.
    assert.deepEqual(typesOf('post /openapi/bot/sendMessage', 'application/json'), send);
    assert.deepEqual(typesOf('post /openapi/bot/getUpdates', FORM), {
      offset: 'integer',
      limit: 'integer',
      timeout: 'number',
      allowed_updates: 'array',
    });
    assert.deepEqual(typesOf('post /openapi/bot/setWebhook', FORM), {
      url: 'string',
      secret_token: 'string',
      payload_format: ['string', 'string', 'string'],
      drop_pending_updates: 'boolean',
    });
    // app_id and app_secret are the operation's security (query parameters), not repeated.
    for (const method of ['get', 'post']) {
      assert.deepEqual(typesOf(`${method} /openapi/oauth2/access_token`, 'query'), {
        grant_type: 'string',
        code: 'string',
        client_id: 'string',
        client_secret: 'string',
        user_id: 'string',
        code_verifier: 'string',
        redirect_uri: 'string',
        refresh_token: 'string',
      });
      assert.deepEqual(typesOf(`${method} /openapi/oauth2/refresh_token`, 'query'), {
        grant_type: 'string',
        refresh_token: 'string',
        client_id: 'string',
        client_secret: 'string',
        user_id: 'string',
        access_token: 'string',
        serial_id: 'string',
      });
    }
    const telegram = typesOf('post /telegram/{token}/sendMessage', 'query');
    assert.equal(telegram.text, 'string');
    assert.ok('chat_id' in telegram, 'Telegram sendMessage: chat_id');
    assert.deepEqual(typesOf('post /telegram/{token}/sendMessage', 'path'), { token: 'string' });
  });
});
