// decisions.md section 1, row by row, on GET /openapi/user/info (signed endpoint) and
// GET /openapi/authorize/userinfo (key-only endpoint).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeStores, describeStoresOnFakeClock, startTestApp } from './helpers/app.js';
import {
  applyEvents,
  createApp,
  createUsers,
  signedHeaders,
  userInfoAnswer,
  type Creds,
  uid,
  type TestUser,
} from './helpers/factories.js';
import { paramError } from './helpers/outbox.js';

await describeStoresOnFakeClock('authentication (decisions.md section 1)', (t, clock) => {
  let creds: Creds;
  let user: TestUser;
  const info = async (headers: Record<string, string>, path = '/openapi/user/info') => {
    const res = await t().app.inject({ method: 'GET', url: `${path}?user_id=${user.user_id}`, headers });
    return { status: res.statusCode, body: res.json<Record<string, unknown>>(), headers: res.headers };
  };
  const signed = (o: Parameters<typeof signedHeaders>[1] = {}) => signedHeaders(creds, { now: clock.now(), ...o });
  const unauthorized = (message: string) => ({ error: 'Unauthorized', code: 401, message });
  const keyOnlyGet = (url: string) => t().app.inject({ method: 'GET', url, headers: { 'x-api-key': creds.api_key } });

  it('sets up a user and an app', async () => {
    [user] = (await createUsers(t().app, 1)) as [TestUser];
    creds = await createApp(t().app, user.user_id);
  });

  it('a good signature (lowercase hex, ms timestamp) answers code 1', async () => {
    const r = await info(signed());
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, userInfoAnswer(user));
    assert.equal(r.headers.deprecation, 'true');
    assert.match(String(r.headers.link), /<.*\/openapi\/user\/info>; rel="successor-version"/);
  });

  it('every answer of GET user/info announces its successor, refusals too', async () => {
    for (const [url, headers, status] of [
      ['/openapi/user/info', { 'x-api-key': creds.api_key }, 401],
      ['/openapi/user/info?user_id=%zz', { 'x-api-key': creds.api_key }, 401],
      ['/openapi/user/info?user_id=nobody', { 'x-api-key': creds.api_key }, 404],
      [`/openapi/user/info?user_id=${user.user_id}`, { 'x-api-key': 'no-such-key' }, 400],
    ] as const) {
      const r = await t().app.inject({ method: 'GET', url, headers });
      assert.equal(r.statusCode, status, url);
      assert.equal(r.headers.deprecation, 'true', url);
      assert.match(String(r.headers.link), /<.*\/openapi\/user\/info>; rel="successor-version"/, url);
    }
  });

  it('accepts an uppercase hex signature', async () => {
    const h = signed();
    assert.equal((await info({ ...h, signature: String(h.signature).toUpperCase() })).status, 200);
  });

  it('accepts a seconds timestamp (10 digits)', async () => {
    assert.equal((await info(signed({ timestamp: String(Math.floor(clock.now() / 1000)) }))).status, 200);
  });

  it('accepts timestamps up to 300 s away, refuses beyond, in both directions', async () => {
    for (const offset of [-300_000, 300_000]) {
      assert.equal((await info(signed({ timestamp: String(clock.now() + offset) }))).status, 200, `offset ${offset}`);
    }
    for (const offset of [-300_001, 300_001, -3_600_000]) {
      const r = await info(signed({ timestamp: String(clock.now() + offset) }));
      assert.equal(r.status, 401);
      assert.deepEqual(r.body, unauthorized('timestamp out of range'));
    }
  });

  it('accepts nonces of 1 to 32 letters and digits, refuses others as a parameter error', async () => {
    for (const nonce of ['7', 'aB3dE6gH', '1'.repeat(32)])
      assert.equal((await info(signed({ nonce }))).status, 200, nonce);
    for (const nonce of ['1'.repeat(33), '1234-678', '']) {
      const r = await info(signed({ nonce }));
      assert.equal(r.status, 401, nonce);
      assert.equal(r.body.message, 'Param error');
      assert.equal(r.body.error, 'Bad Request');
      assert.match(String(r.body.detail), /nonce/);
    }
  });

  it('refuses a malformed timestamp as a parameter error', async () => {
    const r = await info(signed({ timestamp: '12345' }));
    assert.equal(r.status, 401);
    assert.deepEqual(
      { ...r.body, detail: undefined },
      { error: 'Bad Request', code: 401, message: 'Param error', detail: undefined },
    );
  });

  it('refuses a replayed (key, nonce, timestamp) but not the same nonce at another time', async () => {
    const h = signed({ nonce: '12345678' });
    assert.equal((await info(h)).status, 200);
    const replay = await info(h);
    assert.equal(replay.status, 401);
    assert.deepEqual(replay.body, unauthorized('nonce already used'));
    assert.equal((await info(signed({ nonce: '12345678', timestamp: String(clock.now() + 1) }))).status, 200);
  });

  it('a wrong signature gets 401 signature mismatch and does not burn the nonce', async () => {
    const good = signed({ nonce: '55555555' });
    const r = await info({ ...good, signature: signed({ nonce: '55555555', secret: 'wrong' }).signature ?? '' });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, unauthorized('signature mismatch'));
    assert.equal((await info(good)).status, 200);
  });

  it('a signature that is not hex, or an app_id of another app, is a mismatch', async () => {
    assert.deepEqual((await info({ ...signed(), signature: 'zz' })).body, unauthorized('signature mismatch'));
    // The right digest spoiled by one character that is not a hex digit (one above U+00FF whose low
    // byte is the digit it replaces, as Node's hex decoder would read it), or followed by more text.
    for (const spoil of [
      (s: string) => `${s.slice(0, 39)}g`,
      (s: string) => `g${s.slice(1)}`,
      (s: string) => `${String.fromCharCode(0x100 + s.charCodeAt(0))}${s.slice(1)}`,
      (s: string) => `${s}0`,
    ]) {
      const h = signed();
      const r = await info({ ...h, signature: spoil(h.signature ?? '') });
      assert.deepEqual(r.body, unauthorized('signature mismatch'));
    }
    assert.deepEqual((await info({ ...signed(), app_id: 'app_other' })).body, unauthorized('signature mismatch'));
  });

  it('accepts key-only calls on the signed endpoint by default', async () => {
    const r = await info({ 'x-api-key': creds.api_key });
    assert.equal(r.status, 200);
    assert.equal(r.body.code, 1);
  });

  it('verifies a signature sent to a key-only endpoint', async () => {
    assert.equal((await info(signed(), '/openapi/authorize/userinfo')).status, 200);
    const r = await info(signed({ secret: 'wrong' }), '/openapi/authorize/userinfo');
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, unauthorized('signature mismatch'));
  });

  it('an unknown or missing key gets the exact 400 body', async () => {
    const body = { error: 'Bad Request', code: 400, message: 'You X-API-KEY is not available' };
    const cases: Record<string, string>[] = [{ 'x-api-key': 'no-such-key' }, {}, { 'x-api-key': '' }];
    for (const headers of cases) {
      const r = await info(headers);
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, body);
    }
  });

  it('a missing user_id is a parameter error with the field named', async () => {
    const res = await keyOnlyGet('/openapi/user/info');
    assert.equal(res.statusCode, 401);
    assert.deepEqual(res.json(), paramError('querystring.user_id: required'));
  });

  it('an unknown user is a 404, not a fabricated profile', async () => {
    const res = await keyOnlyGet('/openapi/user/info?user_id=nobody');
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { error: 'Not Found', code: 404, message: 'unknown user' });
  });

  it('keeps secrets encrypted at rest and keys only as hashes', async () => {
    const row = await t()
      .services.db.k.selectFrom('apps')
      .selectAll()
      .where('app_id', '=', creds.app_id)
      .executeTakeFirstOrThrow();
    const stored = JSON.stringify(row);
    assert.ok(!stored.includes(creds.app_secret), 'App Secret stored in clear');
    assert.ok(!stored.includes(creds.api_key), 'App Key stored in clear');
  });
});

await describeStores(
  'authentication with REQUIRE_SIGNED=1',
  (t) => {
    it('refuses key-only calls on signed endpoints but not on key-only ones', async () => {
      const [user] = (await createUsers(t().app, 1)) as [TestUser];
      const creds = await createApp(t().app, user.user_id);
      const call = (url: string, headers: Record<string, string>) =>
        t().app.inject({ method: 'GET', url: `${url}?user_id=${user.user_id}`, headers });
      const r = await call('/openapi/user/info', { 'x-api-key': creds.api_key });
      assert.equal(r.statusCode, 401);
      assert.deepEqual(r.json(), { error: 'Unauthorized', code: 401, message: 'signature required' });
      assert.equal((await call('/openapi/user/info', signedHeaders(creds))).statusCode, 200);
      assert.equal((await call('/openapi/authorize/userinfo', { 'x-api-key': creds.api_key })).statusCode, 200);
    });

    it('answers the older key-only paths behavior/vote and behavior/lucky_draw with the key alone (seed-api.md Versioning)', async () => {
      const [user] = (await createUsers(t().app, 1)) as [TestUser];
      const creds = await createApp(t().app, user.user_id);
      const invite = `https://chat.example/invite/${uid('i')}`;
      await applyEvents(t().app, [
        { type: 'group.upserted', data: { group_id: uid('g'), name: 'g', invite_url: invite } },
      ]);
      const query = new URLSearchParams({ wallet_address: user.wallet_address, group_invite_url: invite });
      const call = (path: string) =>
        t().app.inject({ method: 'GET', url: `${path}?${query.toString()}`, headers: { 'x-api-key': creds.api_key } });
      const answers: [string, number, Record<string, number>][] = [
        ['/openapi/behavior/vote', 200, { vote_number: 0 }],
        ['/openapi/behavior/lucky_draw', 1, { initiate_luckDraw_total: 0, luckDraw_total: 0, luckDraw_win_total: 0 }],
      ];
      for (const [path, code, data] of answers) {
        const r = await call(path);
        assert.equal(r.statusCode, 200, `${path}: ${r.body}`);
        assert.deepEqual(r.json(), { code, message: 'success', success: true, data }, path);
      }
      // Their newer paths are signed endpoints, which this setting closes to the key alone.
      for (const path of ['/openapi/vote/info', '/openapi/lucky_draw/info']) {
        const r = await call(path);
        assert.equal(r.statusCode, 401, path);
        assert.deepEqual(r.json(), { error: 'Unauthorized', code: 401, message: 'signature required' }, path);
      }
    });
  },
  { env: { REQUIRE_SIGNED: '1' } },
);

it('never writes a secret into the logs', async () => {
  const lines: string[] = [];
  const t = await startTestApp('sqlite');
  try {
    const { buildApp } = await import('../src/app.js');
    const logged = await buildApp(t.services, {
      logger: { level: 'trace', stream: { write: (line: string) => lines.push(line) } },
    });
    const [user] = (await createUsers(t.app, 1)) as [TestUser];
    const creds = await createApp(t.app, user.user_id);
    await logged.inject({
      method: 'GET',
      url: `/openapi/user/info?user_id=${user.user_id}`,
      headers: signedHeaders(creds),
    });
    await logged.inject({
      method: 'GET',
      url: `/openapi/user/info?user_id=${user.user_id}&app_secret=${creds.app_secret}`,
    });
    await logged.close();
    const all = lines.join('\n');
    assert.ok(lines.length >= 2, 'requests were logged');
    assert.ok(!all.includes(creds.app_secret), 'secret in logs');
    assert.ok(!all.includes(creds.api_key), 'key in logs');
  } finally {
    await t.close();
  }
});
