// The HTTP shell: bad input in the contract's shapes, operations endpoints, request ids, and the
// generic 500 that leaks nothing.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { adminHeaders, describeStores, startTestApp, type TestApp } from './helpers/app.js';
import { createApp, createBot, createUsers, type TestUser } from './helpers/factories.js';

const postJson = (t: TestApp, url: string, payload: string, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url,
    payload,
    headers: { ...adminHeaders, 'content-type': 'application/json', ...headers },
  });

await describeStores('HTTP shell', (t) => {
  const post = (url: string, payload: string, headers: Record<string, string> = {}) =>
    postJson(t(), url, payload, headers);

  it('closes a connection silent for 70 s (one that never sent a request was held for ever), above the 50 s long poll', () => {
    assert.deepEqual([t().app.server.timeout, t().app.server.requestTimeout], [70_000, 60_000]);
  });

  it('GET /healthz answers 200 without authentication', async () => {
    const res = await t().app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
  });

  it('malformed JSON is a 400 invalid_request on the operator surface', async () => {
    const res = await post('/internal/v1/apps', '{"owner_user_id": ');
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), { error: 'invalid_request', message: 'body: malformed JSON' });
  });

  it('a wrong type names the field and the rule', async () => {
    const res = await post('/internal/v1/apps', JSON.stringify({ owner_user_id: 'u', name: 5, redirect_uris: [] }));
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), { error: 'invalid_request', message: 'body.name: must be string' });
  });

  it('an unknown field is refused, not dropped', async () => {
    const res = await post(
      '/internal/v1/apps',
      JSON.stringify({ owner_user_id: 'u', name: 'n', redirect_uris: [], x: 1 }),
    );
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), { error: 'invalid_request', message: 'body.x: unknown field' });
  });

  it('a body over 64 KiB gets 413', async () => {
    const big = JSON.stringify({ owner_user_id: 'u', name: 'x'.repeat(70 * 1024), redirect_uris: [] });
    const res = await post('/internal/v1/apps', big);
    assert.equal(res.statusCode, 413);
    assert.deepEqual(res.json(), { error: 'payload_too_large', message: 'request body too large' });
  });

  it('an unsupported content type is a client error, not a 500', async () => {
    const res = await post('/internal/v1/apps', 'owner_user_id=u', { 'content-type': 'text/csv' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json<{ error: string }>().error, 'invalid_request');
  });

  it('an unknown /openapi/ path answers 404 in the /openapi/ error shape', async () => {
    const res = await t().app.inject({ method: 'GET', url: '/openapi/no/such/thing?x=1' });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), {
      error: 'Not Found',
      code: 404,
      message: 'no such endpoint',
      detail: 'GET /openapi/no/such/thing',
    });
  });

  it('echoes a client request id, or makes one', async () => {
    const given = await t().app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    assert.equal(given.headers['x-request-id'], 'abc-123');
    const made = await t().app.inject({ method: 'GET', url: '/healthz' });
    assert.match(String(made.headers['x-request-id']), /^[0-9a-f]{8}-[0-9a-z]+$/);
  });

  it('serves Prometheus metrics with per-route counts, latency and event counts', async () => {
    const [user] = (await createUsers(t().app, 1)) as [TestUser];
    await t().app.inject({ method: 'GET', url: `/openapi/user/info?user_id=${user.user_id}` });
    const res = await t().app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    assert.match(res.body, /http_requests_total\{method="GET",route="\/openapi\/user\/info",status="400"\} 1/);
    assert.match(res.body, /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/healthz"\}/);
    assert.match(res.body, /operator_events_total\{type="user.upserted",outcome="applied"\} 1/);
  });

  it('serves an OpenAPI 3.1 document generated from the routes, and a reference page', async () => {
    const doc = await t().app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(doc.statusCode, 200);
    const spec = doc.json<{ openapi: string; paths: Record<string, Record<string, unknown>> }>();
    assert.equal(spec.openapi, '3.1.0');
    for (const path of ['/openapi/user/info', '/openapi/authorize/userinfo', '/internal/v1/events', '/healthz']) {
      assert.ok(path in spec.paths, `${path} documented`);
    }
    const page = await t().app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<html/i);
  });
});

it('an unexpected fault answers a generic 500 that leaks nothing', async () => {
  const t = await startTestApp('sqlite');
  const [user] = (await createUsers(t.app, 1)) as [TestUser];
  const creds = await createApp(t.app, user.user_id);
  await t.services.db.close();
  const res = await t.app.inject({
    method: 'GET',
    url: `/openapi/user/info?user_id=${user.user_id}`,
    headers: { 'x-api-key': `${creds.api_key}-other` },
  });
  assert.equal(res.statusCode, 500);
  assert.deepEqual(res.json(), { error: 'Internal Server Error', code: 500, message: 'internal error' });
  const internal = await t.app.inject({
    method: 'GET',
    url: `/internal/v1/users/${user.user_id}/balance`,
    headers: adminHeaders,
  });
  assert.equal(internal.statusCode, 500);
  assert.deepEqual(internal.json(), { error: 'internal_error', message: 'internal error' });
  await t.app.close();
});

await describeStores('U+0000 in input', (t) => {
  it('is a client error on every surface, never a 500 (PostgreSQL text cannot hold it)', async () => {
    const internal = await t().app.inject({
      method: 'POST',
      url: '/internal/v1/sessions',
      headers: adminHeaders,
      payload: { user_id: 'a\u0000b' },
    });
    assert.equal(internal.statusCode, 400);
    assert.deepEqual(internal.json(), { error: 'invalid_request', message: 'text must not contain U+0000' });
    const balance = await t().app.inject({
      method: 'GET',
      url: '/internal/v1/users/a%00b/balance',
      headers: adminHeaders,
    });
    assert.equal(balance.statusCode, 400);
    const [user] = (await createUsers(t().app, 1)) as [TestUser];
    const creds = await createApp(t().app, user.user_id);
    const api = await t().app.inject({
      method: 'GET',
      url: '/openapi/user/info?user_id=a%00b',
      headers: { 'x-api-key': creds.api_key },
    });
    assert.equal(api.statusCode, 401);
    assert.equal(api.json<{ message: string }>().message, 'Param error');
  });
});

await describeStores('answers that carry a secret', (t) => {
  const operator = (url: string, payload: string) =>
    t().app.inject({ method: 'POST', url, payload, headers: { ...adminHeaders, 'content-type': 'application/json' } });

  it('answers that carry a secret are never stored: apps and bots created, the webhook set and read', async () => {
    const [owner] = await createUsers(t().app, 1);
    assert.ok(owner !== undefined, 'a user');
    const noStore = (res: { statusCode: number; headers: Record<string, unknown> }, status: number) => {
      assert.equal(res.statusCode, status);
      assert.deepEqual([res.headers['cache-control'], res.headers.pragma], ['no-store', 'no-cache']);
    };
    const body = (o: Record<string, unknown>) => JSON.stringify({ owner_user_id: owner.user_id, ...o });
    noStore(await operator('/internal/v1/apps', body({ name: 'a', redirect_uris: [] })), 201);
    const bot = await operator('/internal/v1/bots', body({ name: 'b' }));
    noStore(bot, 201);
    noStore(await operator('/internal/v1/sessions', JSON.stringify({ user_id: owner.user_id })), 200);
    const headers = { 'x-api-key': bot.json<{ api_key: string }>().api_key };
    const call = (method: string, payload: Record<string, unknown>) =>
      t().app.inject({ method: 'POST', url: `/openapi/bot/${method}`, headers, payload });
    noStore(await call('setWebhook', { url: 'https://127.0.0.1/hook' }), 200);
    noStore(await call('getWebhookInfo', {}), 200);
  });
});

await describeStores('an empty JSON body', (t) => {
  it('a JSON content type with nothing in it is no body, on every surface', async () => {
    const [owner] = (await createUsers(t().app, 1)) as [TestUser];
    const bot = await createBot(t().app, owner.user_id);
    for (const blank of ['', ' \r\n\t']) {
      const getMe = await postJson(t(), `/telegram/bot${bot.telegram_token}/getMe`, blank);
      assert.equal(getMe.statusCode, 200, getMe.body);
      assert.equal(getMe.json<{ result: { is_bot: boolean } }>().result.is_bot, true);
      const native = await postJson(t(), '/openapi/bot/getMe', blank, { 'x-api-key': bot.api_key });
      assert.equal(native.json<{ ok: boolean }>().ok, true, native.body);
      const apps = await postJson(t(), '/internal/v1/apps', blank);
      assert.equal(apps.statusCode, 400);
      assert.deepEqual(apps.json(), { error: 'invalid_request', message: 'body: must be object' });
    }
  });
});
