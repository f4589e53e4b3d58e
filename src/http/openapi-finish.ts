// Finishes the generated OpenAPI document in one place, so no route has to repeat it: pages are
// not API operations, each surface declares how it authenticates, and every operation carries an
// example request and response sampled from its own schemas (with realistic values by field name).
import type { FastifySchema } from 'fastify';
import { sample } from 'openapi-sampler';
import type { TSchema } from 'typebox';

declare module 'fastify' {
  interface FastifySchema {
    /**
     * Parameters the route reads itself from the query string and the body merged (the bot methods
     * and token endpoints through `src/http/params.ts`, the Telegram surface through its own
     * reader), checked there with this very schema. Fastify does not validate it: a check per part
     * cannot say "required in either part". The document shows it as the query string (`in:
     * 'querystring'`, routes that answer GET too) or as the form and JSON body (`in: 'body'`).
     */
    mergedParams?: { in: 'querystring' | 'body'; schema: TSchema };
    /**
     * The body as the document shows it, where the route checks its parts itself (the events of a
     * batch, each refused with its index): Fastify validates `body`, the document shows this.
     */
    documentedBody?: TSchema;
  }
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Server-rendered pages and scrape targets: served, but not part of the API. */
const PAGE_PREFIXES = ['/developers', '/metrics', '/demo/', '/playground', '/console'];
export const isPage = (url: string): boolean => PAGE_PREFIXES.some((p) => url === p || url.startsWith(p));

type Security = NonNullable<FastifySchema['security']>;

/** How each surface authenticates where a route does not say so itself. */
function defaultSecurity(url: string): Security {
  if (url.startsWith('/internal/')) return [{ operator: [] }];
  // The token endpoints and revocation take the same credentials as HTTP Basic too (RFC 6749 section 2.3.1).
  if (url.startsWith('/openapi/oauth2/')) return [{ appIdQuery: [], appSecret: [] }, { clientBasic: [] }];
  if (url.startsWith('/openapi/payment/')) return [{ appIdQuery: [], appSecret: [] }];
  if (url.startsWith('/openapi/')) return [{ apiKey: [] }];
  if (url.startsWith('/oauth/')) return [{ session: [] }];
  // Liveness, readiness and the document itself are open.
  return [];
}

/** Example values by field name: what the demo community (`npm start`) would answer. */
const EXAMPLES: Record<string, unknown> = {
  user_id: '10001',
  owner_user_id: '10001',
  to_user_id: '10002',
  from_user_id: '10002',
  follower_id: '10002',
  followed_id: '10001',
  payer_user_id: '10002',
  receiver_user_id: '10001',
  bot_user_id: '900000000000000001',
  uid: '10001',
  name: 'Alice',
  group_name: 'Open Platform Demo',
  title: 'Weekly digest',
  group_id: '20001',
  gid: '20001',
  moment_id: '30001',
  chat_id: '10002',
  message_id: '0190c7a1e2b37f00a1b2c3d4e5f60718',
  wallet_address: '0x1111111111111111111111111111111111111111',
  walletAddress: '0x2222222222222222222222222222222222222222',
  followAddress: '0x1111111111111111111111111111111111111111',
  address: '0x1111111111111111111111111111111111111111',
  chain_id: 1,
  group_invite_url: 'https://community.example/g/open-platform-demo',
  invite_url: 'https://community.example/g/open-platform-demo',
  url: 'https://bot.example/webhook',
  avatar: 'https://community.example/avatars/10001.png',
  pic: 'https://community.example/avatars/10001.png',
  group_pic: 'https://community.example/groups/20001.png',
  level_icon: 'https://community.example/levels/6.png',
  redirect_uri: 'https://client.example/callback',
  redirect_uris: ['https://client.example/callback'],
  app_id: 'app_3f9a2c71d0e4',
  api_key: 'ak_5d1e0c6b9a8f7e6d5c4b3a29',
  app_secret: 'as_0f1e2d3c4b5a69788796a5b4c3d2e1f0',
  webhook_key: 'whk_7c6b5a4d3e2f1a0b9c8d7e6f',
  secret_token: 'my-webhook-key-0123456789',
  webhook_secret: 'd2hzZWNfN2M2YjVhNGQzZTJmMWEwYjljOGQ3ZTZm',
  object_name: 'text',
  content: 'Hello from my bot',
  text: 'Hello from my bot',
  parse_mode: 'text',
  chat_type: 'private',
  scope: 'moment',
  amount: '12.50',
  serial_id: 'ser_8a7b6c5d4e3f',
  pay_info: 'Sticker pack',
  page: 1,
  after: '0',
  size: 20,
  level: 6,
  create_time: '2026-11-23 12:00:00',
  date: 1795435200,
};

const kindOf = (v: unknown): string => (Array.isArray(v) ? 'array' : typeof v);

/** Adds `examples` by field name to a copy of the schema, wherever the schema gives none of its own. */
function withNamedExamples(schema: unknown, name?: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => withNamedExamples(s));
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([p, s]) => [p, withNamedExamples(s, p)]));
    } else {
      out[key] = typeof value === 'object' ? withNamedExamples(value) : value;
    }
  }
  const known = name === undefined ? undefined : EXAMPLES[name];
  const declared = schema.type === 'integer' ? 'number' : schema.type;
  const fits = known !== undefined && (declared === undefined || declared === kindOf(known));
  const ownExample = ['examples', 'example', 'const', 'enum', 'default'].some((k) => k in schema);
  if (fits && !ownExample) out.examples = [known];
  return out;
}

// The document's schemas are JSON Schema by construction (TypeBox, through @fastify/swagger).
const exampleOf = (schema: unknown, skipNonRequired = false): unknown =>
  sample(withNamedExamples(schema) as Parameters<typeof sample>[0], {
    skipNonRequired,
    quiet: true,
    enablePatterns: true,
  });

/** Requests show every field a client may send; responses only what is always there. */
function addContentExamples(content: unknown, skipNonRequired: boolean): void {
  if (!isObject(content)) return;
  for (const media of Object.values(content)) {
    if (isObject(media) && media.schema !== undefined && media.example === undefined) {
      media.example = exampleOf(media.schema, skipNonRequired);
    }
  }
}

function finishOperation(op: Json): void {
  if (Array.isArray(op.parameters)) {
    for (const p of op.parameters) {
      if (isObject(p) && p.example === undefined && p.schema !== undefined && typeof p.name === 'string') {
        const sampled = exampleOf({ type: 'object', required: [p.name], properties: { [p.name]: p.schema } });
        if (isObject(sampled)) p.example = sampled[p.name];
      }
    }
  }
  if (isObject(op.requestBody)) addContentExamples(op.requestBody.content, false);
  if (isObject(op.responses)) {
    for (const response of Object.values(op.responses))
      if (isObject(response)) addContentExamples(response.content, true);
  }
}

/** A form field or a JSON member alike (decisions.md section 2). */
const MERGED_BODY = ['application/x-www-form-urlencoded', 'application/json'];

/** A parameter with a default is filled in by the reader, so a client need not send it. */
function withoutDefaultedRequired(schema: TSchema): TSchema {
  const { required, properties }: Json = { ...schema };
  if (!Array.isArray(required) || !isObject(properties)) return schema;
  const isDefaulted = (name: unknown) =>
    typeof name === 'string' && isObject(properties[name]) && 'default' in properties[name];
  return { ...schema, required: required.filter((name) => !isDefaulted(name)) };
}

/** Merged parameters as the part the document shows them in, and a documented body as the body. */
function documentedParams({ mergedParams, documentedBody, ...rest }: FastifySchema): FastifySchema {
  const schema = documentedBody === undefined ? rest : { ...rest, body: documentedBody };
  if (mergedParams === undefined) return schema;
  const params = withoutDefaultedRequired(mergedParams.schema);
  return mergedParams.in === 'body'
    ? { ...schema, body: params, consumes: MERGED_BODY }
    : { ...schema, querystring: params };
}

/** The route-level part: hides pages, documents merged parameters, gives every operation its surface's security. */
export function finishRoute(route: FastifySchema, url: string): FastifySchema {
  if (isPage(url)) return { ...route, hide: true };
  const schema = documentedParams(route);
  return schema.security === undefined ? { ...schema, security: defaultSecurity(url) } : schema;
}

/** The document-level part: examples for every parameter, request body and response. */
export function finishDocument<D extends { paths?: unknown }>(doc: D): D {
  if (!isObject(doc.paths)) return doc;
  for (const item of Object.values(doc.paths)) {
    if (!isObject(item)) continue;
    for (const op of Object.values(item)) if (isObject(op)) finishOperation(op);
  }
  return doc;
}
