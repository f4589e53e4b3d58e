// Hostile input answered in the contract's envelopes, never with a 500 or Fastify's own bodies:
// deep nesting, absolute-form request targets, malformed escapes and invalid UTF-8, numbers
// beyond what a query may carry (issue 13).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import fc from 'fast-check';
import { hasNul, inputFault, textFault, tooDeep } from '../src/lib/nul.js';
import { adminHeaders, describeStores, outboxRows } from './helpers/app.js';
import { createApp, createBot, createUsers, type BotCreds, type Creds, type TestUser } from './helpers/factories.js';
import { listeningPort, rawConversation, rawExchange, rawHalfClosed, rawRequest } from './helpers/raw-http.js';

const nestedObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const nestedArray = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
/** `{"text":"<C3 28>"}`: a lead byte followed by one that cannot continue it. */
const badUtf8Json = Buffer.concat([Buffer.from('{"text":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);

const openapiParamError = (detail: string) => ({ error: 'Bad Request', code: 401, message: 'Param error', detail });
const botParamError = (detail: string) => ({
  ok: false,
  result: null,
  error_code: 400,
  message: `Bad Request: ${detail}`,
  success: false,
});

it('walks of request input are iterative: 100,000 levels neither overflow nor go unnoticed', () => {
  const deep = JSON.parse(nestedArray(100_000)) as unknown;
  assert.equal(hasNul(deep), false, 'no NUL in empty arrays');
  assert.equal(tooDeep(deep), true, 'nesting beyond the cap is seen');
  assert.equal(hasNul(JSON.parse(`${nestedArray(50_000).slice(0, 50_000)}"\\u0000"${']'.repeat(50_000)}`)), true);
  assert.equal(tooDeep({ a: [{ b: [1] }] }), false, 'ordinary nesting passes');
});

it('inputFault is tooDeep, then the text faults (U+0000, a lone surrogate), in one walk', () => {
  const text = fc.constantFrom('', 'a', '\u0000', 'x\u0000y', '\ud800', 'a\udc00', '\ud83d\ude00');
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      text,
      fc.integer(),
      fc.constant(null),
      fc.array(tie('node'), { maxLength: 3 }),
      fc.dictionary(text, tie('node'), { maxKeys: 3 }),
    ),
  })).node;
  /** Every string and key in `v`, by a plain recursive walk (the values here nest a few levels). */
  const strings = (v: unknown): string[] =>
    typeof v === 'string'
      ? [v]
      : Array.isArray(v)
        ? v.flatMap(strings)
        : typeof v === 'object' && v !== null
          ? Object.entries(v).flatMap(([k, child]) => [k, ...strings(child)])
          : [];
  const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
  fc.assert(
    fc.property(value, fc.integer({ min: 1, max: 4 }), (v, max) => {
      const all = strings(v);
      const nul = all.some((s) => s.includes('\u0000'));
      const surrogate = all.some((s) => !s.includes('\u0000') && lone.test(s));
      // Both present: the walk reports whichever string it reaches first.
      const possible = new Set([...(nul ? ['nul'] : []), ...(surrogate ? ['surrogate'] : [])]);
      const fault = textFault(v);
      if (possible.size === 0) assert.equal(fault, undefined);
      else assert.ok(fault !== undefined && possible.has(fault), `${String(fault)} for ${JSON.stringify(v)}`);
      assert.equal(hasNul(v), nul);
      assert.equal(inputFault(v, true, max), tooDeep(v, max) ? 'deep' : fault);
      assert.equal(inputFault(v, false, max), tooDeep(v, max) ? 'deep' : undefined);
    }),
    { numRuns: 500 },
  );
});

await describeStores('hostile input', (t) => {
  let user: TestUser;
  let creds: Creds;
  let bot: BotCreds;
  before(async () => {
    [user] = (await createUsers(t().app, 1)) as [TestUser];
    creds = await createApp(t().app, user.user_id);
    bot = await createBot(t().app, user.user_id);
  });
  const json = (url: string, payload: string | Buffer, headers: Record<string, string> = {}) =>
    t().app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', ...headers } });
  const form = (url: string, payload: string | Buffer, headers: Record<string, string> = {}) =>
    t().app.inject({
      method: 'POST',
      url,
      payload,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    });

  it('a body nested 4,000 levels deep is a parameter error on every surface, 404s included', async () => {
    const detail = 'input nests deeper than 32 levels';
    const unmatched = await json('/no/such/path', nestedObject(4000));
    assert.equal(unmatched.statusCode, 400);
    assert.deepEqual(unmatched.json(), { error: 'invalid_request', message: detail });

    const events = await json(
      '/internal/v1/events',
      `{"events":[{"id":"e","type":"t","data":${nestedObject(4000)}}]}`,
      adminHeaders,
    );
    assert.equal(events.statusCode, 400);
    assert.deepEqual(events.json(), { error: 'invalid_request', message: detail });

    const send = await json('/openapi/bot/sendMessage', `{"reply_markup":${nestedArray(4000)}}`, {
      'x-api-key': bot.api_key,
    });
    assert.equal(send.statusCode, 200);
    assert.deepEqual(send.json(), botParamError(detail));
  });

  it('JSON inside a form field gets the same depth and NUL checks as a body', async () => {
    const key = { 'x-api-key': bot.api_key };
    const base = `chat_id=${user.user_id}&chat_type=private&text=hi`;
    const deep = await form(
      '/openapi/bot/sendMessage',
      `${base}&reply_markup=${encodeURIComponent(nestedArray(4000))}`,
      key,
    );
    assert.equal(deep.statusCode, 200);
    assert.deepEqual(deep.json(), botParamError('reply_markup: nests deeper than 32 levels'));
    const nul = await form(
      '/openapi/bot/sendMessage',
      `${base}&reply_markup=${encodeURIComponent('[["\\u0000"]]')}`,
      key,
    );
    assert.equal(nul.statusCode, 200);
    assert.deepEqual(nul.json(), botParamError('reply_markup: text must not contain U+0000'));
  });

  it('absolute-form request targets are routed and answered in the envelope of their path', async () => {
    const port = await listeningPort(t().app);
    const origin = `http://127.0.0.1:${port}`;
    const noKey = await rawRequest(port, `GET ${origin}/openapi/user/info?user_id=${user.user_id} HTTP/1.1\r\nHost: x`);
    assert.equal(noKey.status, 400, noKey.body);
    assert.deepEqual(JSON.parse(noKey.body), {
      error: 'Bad Request',
      code: 400,
      message: 'You X-API-KEY is not available',
    });

    const withKey = await rawRequest(
      port,
      `GET ${origin}/openapi/user/info?user_id=${user.user_id} HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${creds.api_key}`,
    );
    assert.equal(withKey.status, 200, withKey.body);
    assert.equal((JSON.parse(withKey.body) as { success: boolean }).success, true, withKey.body);

    const getMe = await rawRequest(
      port,
      `POST ${origin}/openapi/bot/getMe HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${bot.api_key}`,
    );
    assert.equal(getMe.status, 200, getMe.body);
    assert.equal((JSON.parse(getMe.body) as { ok: boolean }).ok, true, getMe.body);

    const missing = await rawRequest(port, `GET ${origin}/openapi/no/such?x=1 HTTP/1.1\r\nHost: x`);
    assert.equal(missing.status, 404);
    assert.deepEqual(JSON.parse(missing.body), {
      error: 'Not Found',
      code: 404,
      message: 'no such endpoint',
      detail: 'GET /openapi/no/such',
    });
  });

  it('a head beyond what Node parses (64 KiB) is a 431 in an envelope, not the default body', async () => {
    const port = await listeningPort(t().app);
    // Node reads a connection 64 KiB at a time, so the read that overflows never holds the request
    // line: the path, and so its surface, is unknown, and the answer is in the operator API's envelope.
    const big = `X-Big: ${'a'.repeat(70_000)}`;
    for (const line of ['POST /openapi/bot/getMe HTTP/1.1', 'GET /openapi/user/info HTTP/1.1']) {
      const r = await rawRequest(port, `${line}\r\nHost: x\r\n${big}`);
      assert.equal(r.status, 431, line);
      assert.deepEqual(JSON.parse(r.body), { error: 'headers_too_large', message: 'request headers too large' }, line);
    }
    // Within it, a large header is read as any other.
    const within = await rawRequest(
      port,
      `POST /openapi/bot/getMe HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}`,
    );
    assert.equal(within.status, 200);
    assert.deepEqual(JSON.parse(within.body), {
      ok: false,
      result: null,
      error_code: 400,
      message: 'You X-API-KEY is not available',
      success: false,
    });
    const garbage = await rawRequest(port, `GET /internal/v1/messages HTTP/1.1\r\nHost: x\r\nBad Header: x`);
    assert.equal(garbage.status, 400);
    assert.deepEqual(JSON.parse(garbage.body), { error: 'invalid_request', message: 'malformed HTTP request' });
  });

  it('malformed percent-escapes in the path answer in the envelope of their surface', async () => {
    const detail = 'url: malformed percent-escape or invalid UTF-8';
    const openapi = await t().app.inject({ method: 'GET', url: '/openapi/user/%ZZ' });
    assert.equal(openapi.statusCode, 401);
    assert.deepEqual(openapi.json(), openapiParamError(detail));

    const botMethod = await t().app.inject({ method: 'POST', url: '/openapi/bot/getMe%' });
    assert.equal(botMethod.statusCode, 200);
    assert.deepEqual(botMethod.json(), botParamError(detail));

    const internal = await t().app.inject({
      method: 'GET',
      url: '/internal/v1/users/%C3%28/balance',
      headers: adminHeaders,
    });
    assert.equal(internal.statusCode, 400);
    assert.deepEqual(internal.json(), { error: 'invalid_request', message: detail });
  });

  it('invalid UTF-8 in a query string, a JSON body or a form is a parameter error', async () => {
    const query = await t().app.inject({
      method: 'GET',
      url: `/openapi/user/info?user_id=%C3%28`,
      headers: { 'x-api-key': creds.api_key },
    });
    assert.equal(query.statusCode, 401);
    assert.deepEqual(query.json(), openapiParamError('querystring: malformed percent-escape or invalid UTF-8'));

    const key = { 'x-api-key': bot.api_key };
    const body = await json('/openapi/bot/sendMessage', badUtf8Json, key);
    assert.equal(body.statusCode, 200);
    assert.deepEqual(body.json(), botParamError('body: invalid UTF-8'));

    const formDetail = 'body: malformed percent-escape or invalid UTF-8';
    const escaped = await form('/openapi/bot/sendMessage', `chat_id=${user.user_id}&text=%C3%28`, key);
    assert.deepEqual(escaped.json(), botParamError(formDetail));
    const rawBytes = Buffer.concat([Buffer.from(`chat_id=${user.user_id}&text=`), Buffer.from([0xff, 0xfe])]);
    const raw = await form('/openapi/bot/sendMessage', rawBytes, key);
    assert.deepEqual(raw.json(), botParamError(formDetail));

    const operator = await json('/internal/v1/events', badUtf8Json, adminHeaders);
    assert.equal(operator.statusCode, 400);
    assert.deepEqual(operator.json(), { error: 'invalid_request', message: 'body: invalid UTF-8' });
  });

  it('a well-formed form still arrives intact: UTF-8 text and plus signs', async () => {
    const text = 'grüße + 你好 & more';
    const res = await form(
      '/openapi/bot/sendMessage',
      `chat_id=${user.user_id}&chat_type=private&parse_mode=text&text=${encodeURIComponent(text).replaceAll('%20', '+')}`,
      { 'x-api-key': bot.api_key },
    );
    assert.equal(res.statusCode, 200);
    assert.equal(res.json<{ result: { text: string } }>().result.text, text, res.body);
  });

  // A guard against a quadratic parse, which blocks the event loop (no timeout can end it): 32,000
  // repeats of one key took 6 s when each repeat copied the list, against 20 ms for distinct keys.
  it('a form that repeats one key 32,000 times is read as fast as one of distinct keys, its values one list', async () => {
    const timed = async (payload: string) => {
      const started = performance.now();
      const res = await form('/no/such/path', payload);
      assert.equal(res.statusCode, 404);
      return performance.now() - started;
    };
    const distinct = await timed(Array.from({ length: 9_000 }, (_, i) => `k${i}=`).join('&'));
    const repeated = await timed('a&'.repeat(32_000));
    assert.ok(repeated < 20 * distinct + 50, `${repeated.toFixed(0)} ms against ${distinct.toFixed(0)} ms`);
    const res = await form('/openapi/bot/sendMessage', `chat_id=${user.user_id}${'&text=a'.repeat(9_000)}`, {
      'x-api-key': bot.api_key,
    });
    assert.deepEqual(res.json(), botParamError('text: must be string'));
  });

  /** One answer on the connection, with `status`. */
  const answeredOnce = (text: string, status: number) => {
    assert.match(text, new RegExp(`^HTTP/1\\.1 ${status} `));
    assert.equal(text.match(/HTTP\/1\.1 \d{3} /g)?.length, 1, text);
  };

  it('a request answered before its body was read through gets no second answer when that body turns out malformed', async () => {
    const port = await listeningPort(t().app);
    const badChunk = 'zz\r\nabc\r\n0\r\n\r\n';
    // In the same packet: the 401 is being written when the parser reaches the bad chunk.
    const together = await rawExchange(
      port,
      'POST /internal/v1/events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n' +
        `Connection: close\r\n\r\n${badChunk}`,
    );
    answeredOnce(together, 401);
    // A 401 from an onRequest hook on a kept-alive connection: the answer closes it, so the rest
    // of the body is never read as a next request.
    const early = await rawConversation(
      port,
      'POST /internal/v1/events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n',
      badChunk,
    );
    answeredOnce(early, 401);
    assert.match(early, /\r\nConnection: close\r\n/i);
    // A GET (whose body is not parsed) answered and finished while that body still arrives.
    const get = await rawConversation(
      port,
      `GET /telegram/bot${bot.telegram_token}/getMe HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n`,
      badChunk,
    );
    answeredOnce(get, 200);
  });

  it('a body that breaks off is answered in the envelope of its path, read from the request', async () => {
    const port = await listeningPort(t().app);
    const text = await rawHalfClosed(
      port,
      'POST /telegram/botX:Y/getMe HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        'Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n',
    );
    assert.match(text, /^HTTP\/1\.1 400 /);
    assert.equal(
      text.slice(text.indexOf('\r\n\r\n') + 4),
      JSON.stringify({ ok: false, error_code: 400, description: 'Bad Request: malformed HTTP request' }),
    );
  });

  const multipart = (url: string, payload: string | Buffer, boundary = 'XX') =>
    t().app.inject({
      method: 'POST',
      url,
      payload,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
  const part = (name: string, value: string, type = 'text/plain') =>
    `--XX\r\nContent-Disposition: form-data; name="${name}"\r\nContent-Type: ${type}\r\n\r\n${value}\r\n`;

  it('a multipart body is read into the method parameters: text fields, JSON parts and repeated names', async () => {
    const tg = `/telegram/bot${bot.telegram_token}`;
    const me = await multipart(`${tg}/getMe`, `${part('note', 'x')}--XX--\r\n`);
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json<{ ok: boolean }>().ok, true);
    const markup = { inline_keyboard: [[{ text: 'a', callback_data: 'a' }]] };
    const sent = await multipart(
      `${tg}/sendMessage`,
      `${part('chat_id', user.user_id)}${part('text', 'grüße')}${part('reply_markup', JSON.stringify(markup), 'application/json')}--XX--\r\n`,
    );
    assert.equal(sent.statusCode, 200, sent.body);
    const { result } = sent.json<{ result: { text: string; reply_markup: unknown } }>();
    assert.equal(result.text, 'grüße');
    assert.deepEqual(result.reply_markup, markup);
    const twice = await multipart(
      `${tg}/sendMessage`,
      `${part('chat_id', user.user_id)}${part('text', 'a')}${part('text', 'b')}--XX--\r\n`,
    );
    assert.equal(twice.statusCode, 400);
    assert.deepEqual(twice.json(), { ok: false, error_code: 400, description: 'Bad Request: text: must be string' });
  });

  it('multipart text is UTF-8 or refused, whatever charset a part declares; a file part stays bytes', async () => {
    const tg = `/telegram/bot${bot.telegram_token}`;
    const chat = part('chat_id', user.user_id);
    const bytes = (...pieces: (string | Buffer)[]) =>
      Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
    const invalid = Buffer.from([0x61, 0xff, 0x62]);
    const before = await outboxRows(t());
    for (const type of ['text/plain', 'text/plain; charset=utf-8', 'text/plain; charset=latin1']) {
      const res = await multipart(
        `${tg}/sendMessage`,
        bytes(chat, part('text', '', type).slice(0, -2), invalid, '\r\n--XX--\r\n'),
      );
      assert.equal(res.statusCode, 400, type);
      assert.deepEqual(
        res.json(),
        { ok: false, error_code: 400, description: 'Bad Request: text: invalid UTF-8' },
        type,
      );
    }
    const declared = await multipart(
      `${tg}/sendMessage`,
      `${chat}${part('text', 'café', 'text/plain; charset=utf-8')}${part('reply_markup', '{"inline_keyboard":[]}', 'application/json; charset=utf-8')}--XX--\r\n`,
    );
    assert.equal(declared.statusCode, 200, declared.body);
    assert.equal(declared.json<{ result: { text: string } }>().result.text, 'café');
    // A JSON part, or JSON text in a text part (as grammY and python-telegram-bot send it), alike.
    for (const [markup, type] of [
      ['{"inline_keyboard":', 'application/json'],
      ['{"__proto__":{"x":1}}', 'application/json'],
      ['{"__proto__":{"x":1}}', 'text/plain'],
      ['{"constructor":{"prototype":{"x":1}}}', 'text/plain'],
    ] as const) {
      const res = await multipart(
        `${tg}/sendMessage`,
        `${chat}${part('text', 'a')}${part('reply_markup', markup, type)}--XX--\r\n`,
      );
      assert.equal(res.statusCode, 400, `${markup} as ${type}`);
      assert.deepEqual(res.json(), {
        ok: false,
        error_code: 400,
        description: "Bad Request: can't parse reply keyboard markup JSON object",
      });
    }
    const file = await multipart(
      `${tg}/sendMessage`,
      bytes(
        chat,
        '--XX\r\nContent-Disposition: form-data; name="text"; filename="a.txt"\r\n\r\n',
        invalid,
        '\r\n--XX--\r\n',
      ),
    );
    assert.equal(file.statusCode, 400);
    assert.deepEqual(file.json(), { ok: false, error_code: 400, description: 'Bad Request: text: must be string' });
    assert.equal(await outboxRows(t()), before + 1, 'only the valid send was written');
  });

  it('a malformed multipart body is a 400 in the Telegram envelope, before the token is looked at', async () => {
    const malformed = { ok: false, error_code: 400, description: 'Bad Request: body: malformed multipart/form-data' };
    for (const [payload, boundary] of [
      ['x', ''],
      ['garbage', 'XX'],
      ['--XX\r\nContent-Disposition: form-data; name="text"\r\n\r\nhi', 'XX'],
    ] as const) {
      const res = await t().app.inject({
        method: 'POST',
        url: '/telegram/botX:Y/getMe',
        payload,
        headers: {
          'content-type': boundary === '' ? 'multipart/form-data' : `multipart/form-data; boundary=${boundary}`,
        },
      });
      assert.equal(res.statusCode, 400, payload);
      assert.deepEqual(res.json(), malformed, payload);
    }
  });

  it('a multipart body is held to the Telegram surface limit (256 KiB) and its JSON parts to 32 levels', async () => {
    const tooLarge = { ok: false, error_code: 413, description: 'Request Entity Too Large' };
    const kb = 'x'.repeat(1024);
    const many = await multipart(
      '/telegram/botX:Y/getMe',
      `${Array.from({ length: 270 }, (_, i) => part(`f${i}`, kb)).join('')}--XX--\r\n`,
    );
    assert.equal(many.statusCode, 413);
    assert.deepEqual(many.json(), tooLarge);
    const tg = `/telegram/bot${bot.telegram_token}`;
    const deep = await multipart(
      `${tg}/sendMessage`,
      `${part('chat_id', user.user_id)}${part('text', 'hi')}${part('reply_markup', nestedArray(5_000), 'application/json')}--XX--\r\n`,
    );
    assert.equal(deep.statusCode, 400);
    assert.deepEqual(deep.json(), {
      ok: false,
      error_code: 400,
      description: 'Bad Request: reply_markup nests deeper than 32 levels',
    });
  });

  it(
    'a multipart body refused part-way closes the connection instead of leaving the rest unread',
    { timeout: 10_000 },
    async () => {
      const port = await listeningPort(t().app);
      const body =
        part('chat_id', user.user_id) +
        part('reply_markup', nestedArray(100), 'application/json') +
        `--XX\r\nContent-Disposition: form-data; name="photo"; filename="a.bin"\r\n\r\n${'x'.repeat(60_000)}\r\n--XX--\r\n`;
      const text = await rawExchange(
        port,
        `POST /telegram/bot${bot.telegram_token}/sendMessage HTTP/1.1\r\nHost: x\r\n` +
          `Content-Type: multipart/form-data; boundary=XX\r\nTransfer-Encoding: chunked\r\n\r\n` +
          `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
      );
      assert.match(text, /^HTTP\/1\.1 400 /);
      assert.match(text, /reply_markup nests deeper than 32 levels/);
    },
  );

  it(
    'a chunked multipart body is held to 256 KiB however its bytes are spent (here a preamble)',
    { timeout: 10_000 },
    async () => {
      const port = await listeningPort(t().app);
      const chunk = 'p'.repeat(16_384);
      const text = await rawExchange(
        port,
        'POST /telegram/botX:Y/getMe HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=XX\r\n' +
          `Transfer-Encoding: chunked\r\n\r\n${`4000\r\n${chunk}\r\n`.repeat(17)}`,
      );
      assert.match(text, /^HTTP\/1\.1 413 /);
      assert.match(text, /"description":"Request Entity Too Large"/);
    },
  );

  it('a lone surrogate in JSON text is refused on every surface, as U+0000 is', async () => {
    const detail = 'text must not contain a lone surrogate';
    const send = await json(
      '/openapi/bot/sendMessage',
      `{"chat_id":"${user.user_id}","chat_type":"private","text":"a\\ud800b"}`,
      {
        'x-api-key': bot.api_key,
      },
    );
    assert.equal(send.statusCode, 200);
    assert.deepEqual(send.json(), botParamError(detail));
    const event = await json(
      '/internal/v1/events',
      '{"events":[{"id":"s\\udc00","type":"user.upserted","data":{"user_id":"u1"}}]}',
      adminHeaders,
    );
    assert.equal(event.statusCode, 400);
    assert.deepEqual(event.json(), { error: 'invalid_event', message: detail, index: 0 });
    const telegram = await json(`/telegram/bot${bot.telegram_token}/sendMessage`, `{"chat_id":1,"text":"\\udfff"}`);
    assert.equal(telegram.statusCode, 400);
    assert.deepEqual(telegram.json(), { ok: false, error_code: 400, description: `Bad Request: text: ${detail}` });
    const markup = encodeURIComponent('{"inline_keyboard":[[{"text":"\\ud800","callback_data":"a"}]]}');
    const inQuery = await t().app.inject({
      method: 'POST',
      url: `/telegram/bot${bot.telegram_token}/sendMessage?chat_id=1&text=hi&reply_markup=${markup}`,
    });
    assert.equal(inQuery.statusCode, 400);
    assert.deepEqual(inQuery.json(), {
      ok: false,
      error_code: 400,
      description: `Bad Request: reply_markup: ${detail}`,
    });
    const paired = await json(
      '/openapi/bot/sendMessage',
      `{"chat_id":"${user.user_id}","chat_type":"private","text":"\\ud83d\\ude00"}`,
      {
        'x-api-key': bot.api_key,
      },
    );
    assert.equal(paired.json<{ result: { text: string } }>().result.text, '😀', paired.body);
  });

  it('getUpdates refuses offsets, limits and timeouts no bigint or timer can hold', async () => {
    const key = { 'x-api-key': bot.api_key };
    const poll = (query: string) =>
      t().app.inject({ method: 'POST', url: `/openapi/bot/getUpdates?${query}`, headers: key });
    const max = 'must be <= 9007199254740991';
    // An integer as text is decimal digits (src/http/validation.ts): exponents and Infinity are no integer.
    for (const [query, detail] of [
      ['offset=1e20', 'offset: must be integer'],
      ['offset=Infinity', 'offset: must be integer'],
      ['offset=-Infinity', 'offset: must be integer'],
      ['offset=99999999999999999999', `offset: ${max}`],
      ['offset=-99999999999999999999', 'offset: must be >= -9007199254740991'],
      ['limit=1e20', 'limit: must be integer'],
      ['limit=99999999999999999999', 'limit: must be <= 2147483647'],
      ['timeout=Infinity', 'timeout: must be <= 2147483647'],
    ] as const) {
      const res = await poll(query);
      assert.equal(res.statusCode, 200, query);
      assert.deepEqual(res.json(), botParamError(detail), query);
    }
    const clamped = await poll('offset=1&limit=1000&timeout=0');
    assert.deepEqual(clamped.json<{ result: unknown }>().result, [], 'limits beyond the contract range are clamped');
  });
});
