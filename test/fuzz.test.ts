// Malformed input to every operation /openapi.json lists (issue 13), so new routes are covered
// without touching this file: wrong types, huge numbers, NaN and Infinity, deep nesting, invalid
// UTF-8, bad percent-escapes, NUL, absolute-form targets, oversized headers, random JSON, wrong
// content types, with and without credentials. No answer may be a 5xx or leave the envelope of
// its surface (decisions.md sections 1 and 2, operator-api.md), and the server stays healthy.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import fc from 'fast-check';
import { ADMIN_TOKEN, describeStores } from './helpers/app.js';
import { createApp, createBot, createUsers, signedHeaders, type TestUser } from './helpers/factories.js';
import { listeningPort, rawRequest } from './helpers/raw-http.js';

/** Fixed, so a failure reproduces; enough to reach every operation many times in a few seconds. */
const SEED = 1313;
const RUNS = 400;
const RAW_RUNS = 60;

type Kind = 'bot' | 'openapi' | 'internal' | 'page' | 'telegram';

interface Operation {
  method: string;
  path: string;
  /** Parameter and body field names the document gives, plus the bot methods' (section 2). */
  names: string[];
  kind: Kind;
}

interface DocOperation {
  parameters?: { name: string }[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
}

// Bot methods read their parameters themselves (form, JSON or query), so the document lists none.
const BOT_NAMES = [
  'chat_id',
  'chat_type',
  'text',
  'parse_mode',
  'reply_markup',
  'mention_type',
  'mention_ids',
  'message_id',
  'offset',
  'limit',
  'allowed_updates',
  'url',
  'secret_token',
  'payload_format',
  'drop_pending_updates',
  'callback_query_id',
  'show_alert',
];

/** The envelope a path answers in, from the contract (not from the server's own classifier). */
function kindOf(path: string, op: DocOperation): Kind {
  if (path.startsWith('/openapi/bot/') || path.startsWith('/openapi/answerCallbackQuery')) return 'bot';
  if (path.startsWith('/openapi/')) return 'openapi';
  if (path.startsWith('/telegram/')) return 'telegram';
  const ok = op.responses?.['200'] ?? op.responses?.['201'];
  return ok?.content?.['application/json'] === undefined ? 'page' : 'internal';
}

function operationsOf(doc: { paths: Record<string, Record<string, DocOperation>> }): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => {
      const fields = Object.values(op.requestBody?.content ?? {}).flatMap((c) =>
        Object.keys(c.schema?.properties ?? {}),
      );
      const kind = kindOf(path, op);
      const names = [...(op.parameters ?? []).map((p) => p.name), ...fields, ...(kind === 'bot' ? BOT_NAMES : [])];
      return { method: method.toUpperCase(), path, names: [...new Set(names)], kind };
    }),
  );
}

/** Lone surrogates cannot be percent-encoded; they travel as U+FFFD. */
const escape = (text: string) => encodeURIComponent(Buffer.from(text).toString());

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

/** Text values no well-behaved client sends. */
const hostileText = fc.oneof(
  fc.constantFrom(
    '1e20',
    '-1e20',
    '1e400',
    'Infinity',
    '-Infinity',
    'NaN',
    '-0',
    '0x1F',
    '9007199254740993',
    '99999999999999999999999',
    '',
    ' ',
    'null',
    'true',
    '[]',
    '{}',
    '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
    '{"inline_keyboard":[[{"text":"\\u0000"}]]}',
    'a\u0000b',
    '../../etc/passwd',
    '<script>alert(1)</script>',
    '\u202e\ud800',
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer().map(String),
  fc.double().map(String),
  fc.integer({ min: 100, max: 5000 }).map(nested),
);

/** Percent-escapes as they may appear on the wire: well formed, broken, or not UTF-8. */
const wireText = fc.oneof(
  hostileText.map(escape),
  fc.constantFrom('%ZZ', '%', 'a%', '%C3%28', '%E0%A4%A', '%FF%FE', '%00', '%C0%AF', '%ED%A0%80'),
);

/** `timeout` makes getUpdates wait (up to 50 s); a fuzz run must not, so it only gets non-waits. */
const valueFor = (name: string) =>
  name === 'timeout' ? fc.constantFrom('0', '-1', 'NaN', 'Infinity', '1e20', 'x') : wireText;

const fieldsFor = (op: Operation) =>
  fc
    .uniqueArray(fc.oneof(fc.constantFrom(...op.names, 'timeout'), fc.string({ maxLength: 8 })), { maxLength: 5 })
    .chain((names) => fc.tuple(...names.map((n) => valueFor(n).map((v) => `${escape(n)}=${v}`))))
    .map((pairs) => pairs.join('&'));

/** JSON values with numbers and strings chosen to break parsers and bigint columns. */
const hostileJson = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -0, 2 ** 63, 0.1),
  hostileText,
);

type Body = { contentType?: string; payload: string | Buffer };

const bodyFor = (op: Operation): fc.Arbitrary<Body | undefined> =>
  fc.oneof(
    fc.constant(undefined),
    fc
      .dictionary(fc.oneof(fc.constantFrom(...op.names, 'timeout'), fc.string({ maxLength: 8 })), hostileJson, {
        maxKeys: 6,
      })
      .map((o) => {
        if ('timeout' in o) o.timeout = 0;
        return { contentType: 'application/json', payload: JSON.stringify(o) };
      }),
    fc.jsonValue().map((v) => ({ contentType: 'application/json', payload: JSON.stringify(v) })),
    fc.integer({ min: 100, max: 8000 }).map((n) => ({ contentType: 'application/json', payload: nested(n) })),
    fc.integer({ min: 100, max: 3000 }).map((n) => ({
      contentType: 'application/json',
      payload: `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`,
    })),
    fc.uint8Array({ maxLength: 64 }).map((bytes) => ({
      contentType: 'application/json',
      payload: Buffer.concat([Buffer.from('{"text":"'), Buffer.from(bytes), Buffer.from('"}')]),
    })),
    fieldsFor(op).map((payload) => ({ contentType: 'application/x-www-form-urlencoded', payload })),
    fc.uint8Array({ maxLength: 64 }).map((bytes) => ({
      contentType: 'application/x-www-form-urlencoded',
      payload: Buffer.concat([Buffer.from('text='), Buffer.from(bytes)]),
    })),
    fc
      .tuple(
        fc.constantFrom(
          'text/plain',
          'application/xml',
          'multipart/form-data; boundary=x',
          'application/json; charset=latin1',
          '',
        ),
        fc.string({ maxLength: 64 }),
      )
      .map(([contentType, payload]) => ({ contentType, payload })),
    fc.constantFrom<Body>(
      { contentType: 'application/json', payload: '' },
      { contentType: 'application/json', payload: '{"a":' },
      { contentType: 'application/json', payload: '{"__proto__":{"x":1},"constructor":{"prototype":{}}}' },
    ),
  );

type Who = 'none' | 'app' | 'signed' | 'bot' | 'admin';
/** Headers that authenticate as `who` (fresh nonce for signed requests). */
type Credentials = (who: Who) => Record<string, string>;

const headersFor = (creds: Credentials) =>
  fc
    .tuple(
      fc.constantFrom<Who>('none', 'app', 'signed', 'bot', 'admin'),
      fc.option(
        fc.record({
          name: fc.constantFrom(
            'x-api-key',
            'nonce',
            'timestamp',
            'signature',
            'access_token',
            'authorization',
            'app_id',
          ),
          value: fc.oneof(
            fc.constantFrom('1e20', 'NaN', '-1', 'Bearer ', 'Bearer x', ''),
            fc.stringMatching(/^[\x21-\x7e]{0,40}$/),
            fc.integer({ min: 1000, max: 12_000 }).map((n) => 'k'.repeat(n)),
          ),
        }),
      ),
    )
    .map(([who, extra]) => (extra === null ? creds(who) : { ...creds(who), [extra.name]: extra.value }));

interface Hostile {
  op: Operation;
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: Body | undefined;
}

const requestFor = (creds: Credentials, ops: Operation[]): fc.Arbitrary<Hostile> =>
  fc.constantFrom(...ops).chain((op) =>
    fc.record({
      op: fc.constant(op),
      method: fc.oneof(
        { weight: 9, arbitrary: fc.constant(op.method) },
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
      ),
      path: fc
        .tuple(
          fc.array(wireText, { minLength: 3, maxLength: 3 }),
          fc.constantFrom('', '', '', '%', '%ZZ', '/%C3%28', '/x'),
        )
        .map(([values, suffix]) => {
          let i = 0;
          return op.path.replace(/\{[^}]+\}/g, () => values[i++] ?? 'x') + suffix;
        }),
      query: fieldsFor(op),
      headers: headersFor(creds),
      body: bodyFor(op),
    }),
  );

/** Runs `property`; a failure names the request briefly (counterexamples hold kilobytes of brackets). */
async function holds<T>(property: fc.IAsyncProperty<T>, numRuns: number): Promise<void> {
  const run = await fc.check(property, { seed: SEED, numRuns });
  const why = run.errorInstance instanceof Error ? run.errorInstance.message : String(run.errorInstance);
  assert.ok(!run.failed, `${why} (seed ${run.seed}, path ${run.counterexamplePath ?? ''})`);
}

const brief = (text: string) => (text.length > 160 ? `${text.slice(0, 160)}...(${text.length})` : text);

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Why `answer` is outside the envelope of `kind`, or undefined when it is inside. */
function envelopeProblem(kind: Kind, answer: Answer): string | undefined {
  if (answer.status >= 500) return `HTTP ${answer.status}`;
  if (!answer.contentType.startsWith('application/json')) {
    return kind === 'page' && answer.contentType.startsWith('text/html')
      ? undefined
      : `not JSON: ${answer.contentType}`;
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return 'malformed JSON';
  }
  if (!isRecord(body)) return 'not an object';
  const str = (k: string) => typeof body[k] === 'string';
  switch (kind) {
    case 'bot': {
      const known = new Set(['ok', 'result', 'error_code', 'message', 'success', 'parameters']);
      if (answer.status !== 200) return `bot method answered HTTP ${answer.status}`;
      if (typeof body.ok !== 'boolean' || typeof body.success !== 'boolean' || !('result' in body))
        return 'bot envelope';
      if (!Number.isInteger(body.error_code) || !str('message')) return 'bot envelope';
      return Object.keys(body).every((k) => known.has(k)) ? undefined : 'unknown bot envelope field';
    }
    case 'openapi': {
      const error = str('error') && body.code === answer.status && str('message');
      const detail = body.detail === undefined || str('detail');
      const success =
        Number.isInteger(body.code) && 'data' in body && str('message') && typeof body.success === 'boolean';
      return (error && detail) || success ? undefined : '/openapi/ envelope';
    }
    case 'telegram': {
      // telegram-api.md: {ok:true, result} or HTTP status = error_code with {ok:false, error_code, description}.
      if (body.ok === true) return answer.status === 200 && 'result' in body ? undefined : 'telegram envelope';
      const known = new Set(['ok', 'error_code', 'description', 'parameters']);
      if (body.ok !== false || body.error_code !== answer.status || !str('description')) return 'telegram envelope';
      return Object.keys(body).every((k) => known.has(k)) ? undefined : 'unknown telegram envelope field';
    }
    case 'internal':
    case 'page':
      if (answer.status < 400) return undefined;
      return str('error') && /^[a-z_]+$/.test(String(body.error)) && str('message') ? undefined : 'operator envelope';
  }
}

await describeStores('fuzz of every documented operation', (t) => {
  let ops: Operation[];
  let creds: Credentials;
  before(async () => {
    const [owner] = (await createUsers(t().app, 1)) as [TestUser];
    const app = await createApp(t().app, owner.user_id);
    const bot = await createBot(t().app, owner.user_id);
    const fixed: Record<Exclude<Who, 'signed'>, Record<string, string>> = {
      none: {},
      app: { 'x-api-key': app.api_key },
      bot: { 'x-api-key': bot.api_key },
      admin: { authorization: `Bearer ${ADMIN_TOKEN}` },
    };
    creds = (who) => (who === 'signed' ? signedHeaders(app) : fixed[who]);
    const doc = await t().app.inject({ method: 'GET', url: '/openapi.json' });
    ops = operationsOf(doc.json());
    assert.ok(ops.length > 40, `the document lists the operations (${ops.length})`);
  });

  const send = async (r: Hostile): Promise<Answer> => {
    const headers = {
      ...r.headers,
      ...(r.body?.contentType === undefined ? {} : { 'content-type': r.body.contentType }),
    };
    const res = await t().app.inject({
      method: r.method as 'GET',
      url: r.query === '' ? r.path : `${r.path}?${r.query}`,
      headers,
      ...(r.body === undefined ? {} : { payload: r.body.payload }),
    });
    return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), body: res.body };
  };

  it('every operation answers each classic attack in its envelope', async () => {
    for (const op of ops) {
      const path = op.path.replace(/\{[^}]+\}/g, 'x');
      const attacks: Hostile[] = [
        { contentType: 'application/json', payload: `${'{"a":'.repeat(4000)}1${'}'.repeat(4000)}` },
        { contentType: 'application/json', payload: nested(4000) },
        { contentType: 'application/json', payload: Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]) },
        { contentType: 'application/x-www-form-urlencoded', payload: 'text=%C3%28&offset=1e20' },
        { contentType: 'application/json', payload: '{"text":"a\\u0000b"}' },
      ].flatMap((body) =>
        (['none', 'admin', 'bot', 'app'] as const).map((who) => ({
          op,
          method: op.method,
          path,
          query: 'offset=1e20&limit=Infinity&page=NaN&size=-0&chain_id=1e400',
          headers: creds(who),
          body,
        })),
      );
      attacks.push(
        { op, method: op.method, path: `${path}%`, query: '', headers: creds('bot'), body: undefined },
        { op, method: op.method, path, query: 'user_id=%C3%28&x=%ZZ', headers: creds('app'), body: undefined },
      );
      for (const attack of attacks) {
        const problem = envelopeProblem(op.kind, await send(attack));
        assert.equal(
          problem,
          undefined,
          `${attack.method} ${attack.path}?${attack.query} ${attack.body?.contentType ?? ''}`,
        );
      }
    }
  });

  it('random malformed requests never get a 5xx or leave their envelope', async () => {
    await holds(
      fc.asyncProperty(requestFor(creds, ops), async (r) => {
        const answer = await send(r);
        const problem = envelopeProblem(r.op.kind, answer);
        const request = `${r.method} ${brief(r.path)}?${brief(r.query)} ${brief(JSON.stringify(r.headers))} ${r.body?.contentType ?? ''}`;
        assert.equal(problem, undefined, `${request} -> ${answer.status} ${brief(answer.body)}`);
      }),
      RUNS,
    );
  });

  it('absolute-form targets and oversized headers over a real socket stay in their envelope', async () => {
    const port = await listeningPort(t().app);
    await holds(
      fc.asyncProperty(requestFor(creds, ops), fc.boolean(), async (r, absolute) => {
        const target = `${absolute ? `http://127.0.0.1:${port}` : ''}${r.path}${r.query === '' ? '' : `?${r.query}`}`;
        const lines = [`${r.method} ${target} HTTP/1.1`, 'Host: 127.0.0.1'];
        for (const [name, value] of Object.entries(r.headers)) lines.push(`${name}: ${value}`);
        if (r.body?.contentType !== undefined) lines.push(`Content-Type: ${r.body.contentType}`);
        const payload = r.body === undefined ? undefined : Buffer.from(r.body.payload);
        const res = await rawRequest(port, lines.join('\r\n'), payload);
        const answer = { status: res.status, contentType: res.headers['content-type'] ?? '', body: res.body };
        const problem = envelopeProblem(r.op.kind, answer);
        const request = `${r.method} ${brief(target)} ${brief(JSON.stringify(r.headers))} ${r.body?.contentType ?? ''}`;
        assert.equal(problem, undefined, `${request} -> ${res.status} ${brief(res.body)}`);
      }),
      RAW_RUNS,
    );
  });

  it('the server is healthy afterwards', async () => {
    const health = await t().app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(health.statusCode, 200);
    const me = await t().app.inject({ method: 'POST', url: '/openapi/bot/getMe', headers: creds('bot') });
    assert.equal(me.json<{ ok: boolean }>().ok, true, me.body);
  });
});
