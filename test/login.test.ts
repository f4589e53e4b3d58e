// Authorization login (seed-api.md "Authorization login", "Authentication" items 3-5, "States and
// transitions"; decisions.md section 5): every row of the States table for codes, access tokens and
// refresh tokens, the token endpoints (GET and POST, parameters from the query, a form or JSON) and
// the Token-header user endpoints. Time moves with the FakeClock; nothing sleeps.
// Codes come straight from OAuthService.issueCode (the authorize page is tested elsewhere).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { describeStoresOnFakeClock, type TestApp } from './helpers/app.js';
import { applyEvents, createApp, createUsers, type Creds, type TestUser } from './helpers/factories.js';

const REDIRECT = 'https://client.example/cb';
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

type Body = Record<string, unknown>;
interface Answer {
  status: number;
  body: Body;
}
interface Tokens {
  access_token: string;
  refresh_token: string;
}
/** How the parameters of a token endpoint travel. */
type Mode = 'get' | 'post-query' | 'post-form' | 'post-json';
const MODES: readonly Mode[] = ['get', 'post-query', 'post-form', 'post-json'];

const isRecord = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);

function request(url: string, params: Record<string, string>, mode: Mode): InjectOptions {
  const qs = new URLSearchParams(params).toString();
  switch (mode) {
    case 'get':
      return { method: 'GET', url: `${url}?${qs}` };
    case 'post-query':
      return { method: 'POST', url: `${url}?${qs}` };
    case 'post-form':
      return { method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: qs };
    case 'post-json':
      return { method: 'POST', url, payload: params };
  }
}

/** Success of a token endpoint: HTTP 200, the exact envelope and token record. */
function tokensOf(r: Answer, expiresIn = 7200): Tokens {
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const data = r.body.data;
  assert.ok(isRecord(data), JSON.stringify(r.body));
  const { access_token, refresh_token } = data;
  assert.ok(
    typeof access_token === 'string' && access_token.length > 0,
    "typeof access_token === 'string' && access_token.length > 0",
  );
  assert.ok(
    typeof refresh_token === 'string' && refresh_token.length > 0,
    "typeof refresh_token === 'string' && refresh_token.length > 0",
  );
  assert.deepEqual(r.body, {
    code: 1,
    data: { access_token, expires_in: expiresIn, refresh_token, token_type: '' },
    message: 'success',
    success: true,
    // Added beside the envelope: RFC 6749 section 5.1, where standard OAuth clients read the tokens.
    access_token,
    token_type: 'Bearer',
    expires_in: expiresIn,
    refresh_token,
  });
  return { access_token, refresh_token };
}

/** A login-flow failure: HTTP 200 (unless said otherwise), `{code, data:null, message, success:false}`. */
function assertLoginFailure(r: Answer, code: number, status = 200): void {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.deepEqual(Object.keys(r.body).sort(), ['code', 'data', 'message', 'success']);
  assert.equal(r.body.code, code, JSON.stringify(r.body));
  assert.equal(r.body.data, null);
  assert.equal(r.body.success, false);
  assert.ok(
    typeof r.body.message === 'string' && r.body.message.length > 0,
    "typeof r.body.message === 'string' && r.body.message.length > 0",
  );
}

/** Token requests sent at once: exactly one succeeds (its tokens), every other fails with `code`. */
function oneSuccess(answers: Answer[], code: number): Tokens {
  const won = answers.filter((r) => r.body.code === 1);
  assert.equal(won.length, 1, JSON.stringify(answers.map((r) => r.body)));
  for (const r of answers.filter((a) => a.body.code !== 1)) assertLoginFailure(r, code);
  return tokensOf(won[0] ?? { status: 0, body: {} });
}

const BAD_CREDENTIALS = { code: 401, data: null, message: 'Bad Request', success: false };

/** A parameter error of an /openapi/ endpoint (decisions.md section 1), naming `field`. */
function assertParamError(r: Answer, field: string): void {
  assert.equal(r.status, 401, JSON.stringify(r.body));
  assert.deepEqual(Object.keys(r.body).sort(), ['code', 'detail', 'error', 'message']);
  assert.deepEqual(
    { ...r.body, detail: undefined },
    { error: 'Bad Request', code: 401, message: 'Param error', detail: undefined },
  );
  assert.match(String(r.body.detail), new RegExp(field));
}

const jwtPayload = (token: string): Body => {
  const part = token.split('.')[1];
  assert.ok(part !== undefined, 'part !== undefined');
  const payload: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  assert.ok(isRecord(payload), 'isRecord(payload)');
  return payload;
};

/** The calls of one suite, on its running app. */
function client(t: () => TestApp) {
  const send = async (options: InjectOptions): Promise<Answer> => {
    const res = await t().app.inject(options);
    const body: unknown = res.json();
    assert.ok(isRecord(body), res.body);
    return { status: res.statusCode, body };
  };
  return {
    async code(app: Creds, user: TestUser, redirect = REDIRECT): Promise<string> {
      const ref = await t().services.oauth.appForRedirect(app.app_id, redirect);
      assert.ok(ref !== undefined, 'redirect URI registered');
      return t().services.oauth.issueCode(ref, user.user_id, redirect, 'moment');
    },
    exchange(app: Creds, user: TestUser, code: string, mode: Mode = 'get', extra: Record<string, string> = {}) {
      const params = {
        grant_type: 'authorization_code',
        code,
        app_id: app.app_id,
        app_secret: app.app_secret,
        user_id: user.user_id,
        ...extra,
      };
      return send(request('/openapi/oauth2/access_token', params, mode));
    },
    refresh(app: Creds, user: TestUser, refreshToken: string, mode: Mode = 'get', extra: Record<string, string> = {}) {
      const params = {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        app_id: app.app_id,
        app_secret: app.app_secret,
        user_id: user.user_id,
        ...extra,
      };
      return send(request('/openapi/oauth2/refresh_token', params, mode));
    },
    raw: (url: string, params: Record<string, string>, mode: Mode) => send(request(url, params, mode)),
    info(userId: string, accessToken: string | undefined) {
      return send({
        method: 'POST',
        url: `/openapi/user/info?user_id=${encodeURIComponent(userId)}`,
        headers: accessToken === undefined ? {} : { access_token: accessToken },
      });
    },
    followers(userId: string, accessToken: string | undefined, paging = '') {
      return send({
        method: 'POST',
        url: `/openapi/user/followers?user_id=${encodeURIComponent(userId)}${paging}`,
        headers: accessToken === undefined ? {} : { access_token: accessToken },
      });
    },
  };
}

await describeStoresOnFakeClock('authorization login', (t, clock) => {
  const c = client(t);
  let alice: TestUser;
  let bob: TestUser;
  let app: Creds;
  let other: Creds;
  const login = async (mode: Mode = 'get') => tokensOf(await c.exchange(app, alice, await c.code(app, alice), mode));
  const userView = (u: TestUser) => ({
    name: u.name,
    wallet_address: u.wallet_address,
    avatar: u.avatar,
    uid: u.user_id,
  });

  it('sets up users and two apps', async () => {
    [alice, bob] = (await createUsers(t().app, 2, {
      level: 7,
      level_icon: 'https://img.example/lv7.png',
    })) as [TestUser, TestUser];
    app = await createApp(t().app, bob.user_id);
    other = await createApp(t().app, bob.user_id);
  });

  // ---- States: authorization code valid -> consumed, one access token ----

  it('a valid code is exchanged for an access token (2 h) and a refresh token', async () => {
    const tk = await login();
    const claims = jwtPayload(tk.access_token);
    assert.equal(claims.sub, alice.user_id);
    assert.ok(Object.values(claims).includes(app.app_id), 'the JWT carries the app id');
    assert.ok(Object.values(claims).includes('moment'), 'the JWT carries the scope');
    assert.equal(Number(claims.exp) - Number(claims.iat), 7200);
    assert.notEqual(tk.refresh_token, tk.access_token);
  });

  it('the code is valid for 5 minutes: 299.999 s after issue it still works', async () => {
    const code = await c.code(app, alice);
    clock.advance(5 * MIN - 1);
    tokensOf(await c.exchange(app, alice, code));
  });

  it('a code 5 minutes old is expired: -2010, and stays so', async () => {
    const code = await c.code(app, alice);
    clock.advance(5 * MIN);
    assertLoginFailure(await c.exchange(app, alice, code), -2010);
    clock.advance(HOUR);
    assertLoginFailure(await c.exchange(app, alice, code), -2010);
  });

  it('an invalid code gives -2011: unknown, empty-looking, or issued to another app', async () => {
    assertLoginFailure(await c.exchange(app, alice, 'no-such-code'), -2011);
    assertLoginFailure(await c.exchange(app, alice, 'x'.repeat(512)), -2011);
    const code = await c.code(app, alice);
    assertLoginFailure(await c.exchange(other, alice, code), -2011);
    // Refusing it for the other app did not consume it.
    tokensOf(await c.exchange(app, alice, code));
  });

  it('a code exchanged with the user_id of another user: -2004, and the code is not consumed', async () => {
    const code = await c.code(app, alice);
    assertLoginFailure(await c.exchange(app, bob, code), -2004);
    tokensOf(await c.exchange(app, alice, code));
  });

  it('a code used twice: the second exchange gives -2011 and the tokens of the first stop working', async () => {
    const code = await c.code(app, alice);
    const first = tokensOf(await c.exchange(app, alice, code));
    assert.equal((await c.info(alice.user_id, first.access_token)).body.code, 1);
    assertLoginFailure(await c.exchange(app, alice, code), -2011);
    assertLoginFailure(await c.info(alice.user_id, first.access_token), -2015);
    assertLoginFailure(await c.followers(alice.user_id, first.access_token), -2015);
    assertLoginFailure(await c.refresh(app, alice, first.refresh_token), -2012);
    // ...and a third time, still -2011.
    assertLoginFailure(await c.exchange(app, alice, code), -2011);
  });

  it('a code used twice after a refresh: the refreshed tokens are revoked too (one family)', async () => {
    const code = await c.code(app, alice);
    const first = tokensOf(await c.exchange(app, alice, code));
    const renewed = tokensOf(await c.refresh(app, alice, first.refresh_token));
    assert.equal((await c.info(alice.user_id, renewed.access_token)).body.code, 1);
    assertLoginFailure(await c.exchange(app, alice, code), -2011);
    assertLoginFailure(await c.info(alice.user_id, renewed.access_token), -2015);
    assertLoginFailure(await c.refresh(app, alice, renewed.refresh_token), -2012);
  });

  it('a code exchanged twice concurrently: exactly one success, and its tokens are revoked', async () => {
    const code = await c.code(app, alice);
    const tk = oneSuccess(await Promise.all([1, 2, 3].map(() => c.exchange(app, alice, code))), -2011);
    assertLoginFailure(await c.info(alice.user_id, tk.access_token), -2015);
    assertLoginFailure(await c.refresh(app, alice, tk.refresh_token), -2012);
  });

  it('HEAD on either token endpoint is an unknown route, as PUT is: the code and the refresh token stay unused', async () => {
    /** HEAD with these parameters answers as PUT does (404, no such endpoint), without the body. */
    const headIsUnknown = async (url: string, params: Record<string, string>) => {
      const target = `${url}?${new URLSearchParams(params).toString()}`;
      const head = await t().app.inject({ method: 'HEAD', url: target });
      const put = await t().app.inject({ method: 'PUT', url: target });
      const unknown = (method: string) => ({
        error: 'Not Found',
        code: 404,
        message: 'no such endpoint',
        detail: `${method} ${url}`,
      });
      assert.deepEqual([put.statusCode, put.json()], [404, unknown('PUT')]);
      assert.deepEqual([head.statusCode, head.body], [404, ''], url);
      assert.equal(head.headers['content-type'], put.headers['content-type'], url);
      assert.equal(Number(head.headers['content-length']), JSON.stringify(unknown('HEAD')).length, url);
    };
    const code = await c.code(app, alice);
    const credentials = { app_id: app.app_id, app_secret: app.app_secret, user_id: alice.user_id };
    await headIsUnknown('/openapi/oauth2/access_token', { grant_type: 'authorization_code', code, ...credentials });
    const tk = tokensOf(await c.exchange(app, alice, code));
    await headIsUnknown('/openapi/oauth2/refresh_token', {
      grant_type: 'refresh_token',
      refresh_token: tk.refresh_token,
      ...credentials,
    });
    const renewed = tokensOf(await c.refresh(app, alice, tk.refresh_token));
    assert.equal((await c.info(alice.user_id, renewed.access_token)).body.code, 1, 'the family was not revoked');
  });

  // ---- States: access token valid -> expired after 2 hours ----

  it('an access token works for 2 hours, then gives -2013 on both Token-header endpoints', async () => {
    const tk = await login();
    clock.advance(2 * HOUR - 1000);
    assert.equal((await c.info(alice.user_id, tk.access_token)).body.code, 1);
    assert.equal((await c.followers(alice.user_id, tk.access_token)).body.code, 1);
    clock.advance(1000);
    assertLoginFailure(await c.info(alice.user_id, tk.access_token), -2013);
    assertLoginFailure(await c.followers(alice.user_id, tk.access_token), -2013);
  });

  // ---- States: access token expired -> refresh -> new access token valid 2 hours ----

  it('refresh with a valid refresh token gives new tokens; the new access token lives 2 hours', async () => {
    const tk = await login();
    clock.advance(3 * HOUR);
    assertLoginFailure(await c.info(alice.user_id, tk.access_token), -2013);
    const renewed = tokensOf(await c.refresh(app, alice, tk.refresh_token));
    assert.notEqual(renewed.access_token, tk.access_token);
    assert.notEqual(renewed.refresh_token, tk.refresh_token);
    assert.equal((await c.info(alice.user_id, renewed.access_token)).body.code, 1);
    clock.advance(2 * HOUR);
    assertLoginFailure(await c.info(alice.user_id, renewed.access_token), -2013);
    // The rotated refresh token renews again.
    const again = tokensOf(await c.refresh(app, alice, renewed.refresh_token));
    assert.equal((await c.info(alice.user_id, again.access_token)).body.code, 1);
  });

  it('the old refresh token used again gives -2012 and revokes the whole family', async () => {
    const tk = await login();
    const renewed = tokensOf(await c.refresh(app, alice, tk.refresh_token));
    assertLoginFailure(await c.refresh(app, alice, tk.refresh_token), -2012);
    // Everything of the family stops: the access tokens and the newest refresh token.
    assertLoginFailure(await c.info(alice.user_id, renewed.access_token), -2015);
    assertLoginFailure(await c.info(alice.user_id, tk.access_token), -2015);
    assertLoginFailure(await c.refresh(app, alice, renewed.refresh_token), -2012);
    // Another login of the same user is unaffected.
    const fresh = await login();
    assert.equal((await c.info(alice.user_id, fresh.access_token)).body.code, 1);
  });

  it('one refresh token sent concurrently: one success, the rest -2012, and the family is revoked', async () => {
    const tk = await login();
    const renewed = oneSuccess(await Promise.all([1, 2, 3].map(() => c.refresh(app, alice, tk.refresh_token))), -2012);
    assertLoginFailure(await c.info(alice.user_id, renewed.access_token), -2015);
    assertLoginFailure(await c.refresh(app, alice, renewed.refresh_token), -2012);
  });

  it('a refresh token works for 14 days, then gives -2012', async () => {
    const early = await login();
    const late = await login();
    clock.advance(14 * DAY - 1000);
    tokensOf(await c.refresh(app, alice, early.refresh_token));
    clock.advance(1000);
    assertLoginFailure(await c.refresh(app, alice, late.refresh_token), -2012);
  });

  it('refresh fails with -2012 for an unknown token, another user_id or another app', async () => {
    assertLoginFailure(await c.refresh(app, alice, 'no-such-refresh-token'), -2012);
    const tk = await login();
    assertLoginFailure(await c.refresh(app, bob, tk.refresh_token), -2012);
    assertLoginFailure(await c.refresh(other, alice, tk.refresh_token), -2012);
    // Refusals did not use it up.
    tokensOf(await c.refresh(app, alice, tk.refresh_token));
  });

  it('an access token is not a refresh token (and vice versa)', async () => {
    const tk = await login();
    assertLoginFailure(await c.refresh(app, alice, tk.access_token), -2012);
    assertLoginFailure(await c.info(alice.user_id, tk.refresh_token), -2015);
  });

  // ---- Token checks on the Token-header endpoints ----

  it('the token of another user gives -2001', async () => {
    const tk = await login();
    assertLoginFailure(await c.info(bob.user_id, tk.access_token), -2001);
    assertLoginFailure(await c.followers(bob.user_id, tk.access_token), -2001);
  });

  it('a garbage, tampered or missing token gives -2015', async () => {
    const tk = await login();
    const [head, payload, sig] = tk.access_token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...jwtPayload(tk.access_token), sub: bob.user_id }), 'utf8').toString(
      'base64url',
    );
    const flipped = `${sig?.startsWith('A') === true ? 'B' : 'A'}${sig?.slice(1) ?? ''}`;
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' }), 'utf8').toString('base64url');
    for (const token of [
      'garbage',
      'a.b.c',
      `${head}.${forged}.${sig}`,
      `${head}.${payload}.${flipped}`,
      `${none}.${payload}.`,
      '',
    ]) {
      assertLoginFailure(await c.info(alice.user_id, token), -2015);
      assertLoginFailure(await c.followers(alice.user_id, token), -2015);
    }
    assertLoginFailure(await c.info(alice.user_id, undefined), -2015);
    assertLoginFailure(await c.followers(alice.user_id, undefined), -2015);
  });

  // ---- Token endpoints: app credentials, methods, parameter sources, grant_type, parameters ----

  it('bad app credentials on both token endpoints: HTTP 401 {code:401, data:null, message:Bad Request}', async () => {
    const code = await c.code(app, alice);
    const tk = await login();
    const wrongSecret = { ...app, app_secret: `${app.app_secret}x` };
    const unknownApp = { ...app, app_id: 'no-such-app' };
    const otherSecret = { ...app, app_secret: other.app_secret };
    for (const bad of [wrongSecret, unknownApp, otherSecret]) {
      for (const mode of MODES) {
        const ex = await c.exchange(bad, alice, code, mode);
        assert.equal(ex.status, 401);
        assert.deepEqual(ex.body, BAD_CREDENTIALS);
        const rf = await c.refresh(bad, alice, tk.refresh_token, mode);
        assert.equal(rf.status, 401);
        assert.deepEqual(rf.body, BAD_CREDENTIALS);
      }
    }
    // Neither the code nor the refresh token was used up by the refusals.
    tokensOf(await c.exchange(app, alice, code));
    tokensOf(await c.refresh(app, alice, tk.refresh_token));
  });

  for (const mode of MODES) {
    it(`token endpoints take their parameters as ${mode}`, async () => {
      const tk = tokensOf(await c.exchange(app, alice, await c.code(app, alice), mode));
      const renewed = tokensOf(await c.refresh(app, alice, tk.refresh_token, mode));
      assert.equal((await c.info(alice.user_id, renewed.access_token)).body.code, 1);
    });
  }

  it('token answers, and their refusals, are never stored (RFC 6749 section 5.1)', async () => {
    const tk = await login();
    const code = await c.code(app, alice);
    const exchange = { grant_type: 'authorization_code', code, app_id: app.app_id, app_secret: app.app_secret };
    const refresh = { grant_type: 'refresh_token', refresh_token: tk.refresh_token, app_id: app.app_id };
    for (const mode of MODES) {
      for (const [url, params] of [
        ['/openapi/oauth2/access_token', { ...exchange, user_id: alice.user_id }],
        ['/openapi/oauth2/refresh_token', { ...refresh, app_secret: app.app_secret, user_id: alice.user_id }],
        ['/openapi/oauth2/access_token', { ...exchange, app_secret: 'wrong', user_id: alice.user_id }],
      ] as const) {
        const res = await t().app.inject(request(url, params, mode));
        assert.deepEqual(
          [res.headers['cache-control'], res.headers.pragma],
          ['no-store', 'no-cache'],
          `${mode} ${url} ${res.statusCode}`,
        );
      }
    }
  });

  it('query and body combine (POST with some parameters in each)', async () => {
    const code = await c.code(app, alice);
    const qs = new URLSearchParams({ app_id: app.app_id, app_secret: app.app_secret }).toString();
    const res = await t().app.inject({
      method: 'POST',
      url: `/openapi/oauth2/access_token?${qs}`,
      payload: { grant_type: 'authorization_code', code, user_id: alice.user_id },
    });
    tokensOf({ status: res.statusCode, body: res.json<Body>() });
  });

  it('refresh ignores the listed access_token and serial_id parameters', async () => {
    const tk = await login();
    tokensOf(
      await c.refresh(app, alice, tk.refresh_token, 'post-json', { access_token: tk.access_token, serial_id: 's1' }),
    );
  });

  it('a wrong grant_type gives -2004 on both endpoints (and consumes nothing)', async () => {
    const code = await c.code(app, alice);
    const tk = await login();
    for (const mode of MODES) {
      // (refresh_token is the refresh grant there: test/oauth-extras.test.ts)
      for (const grant of ['password', 'Authorization_code', 'Refresh_token']) {
        assertLoginFailure(await c.exchange(app, alice, code, mode, { grant_type: grant }), -2004);
      }
      for (const grant of ['authorization_code', 'onetime_token']) {
        assertLoginFailure(await c.refresh(app, alice, tk.refresh_token, mode, { grant_type: grant }), -2004);
      }
    }
    tokensOf(await c.exchange(app, alice, code));
    tokensOf(await c.refresh(app, alice, tk.refresh_token));
  });

  it('missing or empty parameters: HTTP 401 Param error naming the field', async () => {
    const code = await c.code(app, alice);
    const exchange = {
      grant_type: 'authorization_code',
      code,
      app_id: app.app_id,
      app_secret: app.app_secret,
      user_id: alice.user_id,
    };
    const refreshParams = {
      grant_type: 'refresh_token',
      refresh_token: 'r',
      app_id: app.app_id,
      app_secret: app.app_secret,
      user_id: alice.user_id,
    };
    for (const mode of MODES) {
      for (const field of Object.keys(exchange)) {
        const without = Object.fromEntries(Object.entries(exchange).filter(([k]) => k !== field));
        assertParamError(await c.raw('/openapi/oauth2/access_token', without, mode), field);
        assertParamError(await c.raw('/openapi/oauth2/access_token', { ...exchange, [field]: '' }, mode), field);
      }
      for (const field of Object.keys(refreshParams)) {
        const without = Object.fromEntries(Object.entries(refreshParams).filter(([k]) => k !== field));
        assertParamError(await c.raw('/openapi/oauth2/refresh_token', without, mode), field);
      }
    }
    assertParamError(await c.raw('/openapi/oauth2/access_token', {}, 'get'), '');
    tokensOf(await c.exchange(app, alice, code));
  });

  // ---- Token-header user endpoints: exact bodies ----

  it('POST /openapi/user/info: the user with level and level_icon', async () => {
    const tk = await login();
    const r = await c.info(alice.user_id, tk.access_token);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      code: 1,
      data: { ...userView(alice), level: 7, level_icon: 'https://img.example/lv7.png' },
      message: 'success',
      success: true,
    });
  });

  it('POST /openapi/user/info needs user_id in the query (Param error)', async () => {
    const tk = await login();
    const r = await t().app.inject({
      method: 'POST',
      url: '/openapi/user/info',
      headers: { access_token: tk.access_token },
    });
    assertParamError({ status: r.statusCode, body: r.json<Body>() }, 'user_id');
  });

  it('POST /openapi/user/followers: the followers newest first, paged', async () => {
    const fans = await createUsers(t().app, 5);
    for (const f of fans)
      await applyEvents(t().app, [
        { type: 'follow.created', data: { follower_id: f.user_id, followed_id: alice.user_id } },
      ]);
    const tk = await login();
    const newestFirst = [...fans].reverse().map(userView);
    const page = async (paging: string) => {
      const r = await c.followers(alice.user_id, tk.access_token, paging);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body;
    };
    assert.deepEqual(await page(''), { code: 1, data: newestFirst, message: 'success', success: true });
    assert.deepEqual(await page('&page=1&size=2'), {
      code: 1,
      data: newestFirst.slice(0, 2),
      message: 'success',
      success: true,
    });
    assert.deepEqual((await page('&page=2&size=2')).data, newestFirst.slice(2, 4));
    assert.deepEqual((await page('&page=3&size=2')).data, newestFirst.slice(4));
    assert.deepEqual((await page('&page=4&size=2')).data, []);
    assert.deepEqual((await page('&size=100')).data, newestFirst);
    // Bob has no followers.
    const bobTk = tokensOf(await c.exchange(app, bob, await c.code(app, bob)));
    assert.deepEqual((await c.followers(bob.user_id, bobTk.access_token)).body, {
      code: 1,
      data: [],
      message: 'success',
      success: true,
    });
  });

  it('POST /openapi/user/followers: paging outside the bounds is a Param error', async () => {
    const tk = await login();
    for (const [paging, field] of [
      ['&page=0', 'page'],
      ['&size=0', 'size'],
      ['&size=101', 'size'],
      ['&page=x', 'page'],
    ] as const) {
      assertParamError(await c.followers(alice.user_id, tk.access_token, paging), field);
    }
    const r = await t().app.inject({
      method: 'POST',
      url: '/openapi/user/followers',
      headers: { access_token: tk.access_token },
    });
    assertParamError({ status: r.statusCode, body: r.json<Body>() }, 'user_id');
  });
});

await describeStoresOnFakeClock(
  'authorization login: lifetimes from the settings',
  (t, clock) => {
    const c = client(t);
    let user: TestUser;
    let app: Creds;

    it('sets up', async () => {
      [user] = (await createUsers(t().app, 1)) as [TestUser];
      app = await createApp(t().app, user.user_id);
    });

    it('AUTH_CODE_TTL_S bounds the code', async () => {
      const ok = await c.code(app, user);
      const late = await c.code(app, user);
      clock.advance(1999);
      tokensOf(await c.exchange(app, user, ok), 30);
      clock.advance(1);
      assertLoginFailure(await c.exchange(app, user, late), -2010);
    });

    it('ACCESS_TOKEN_TTL_S is expires_in and bounds the access token; REFRESH_TOKEN_TTL_S the refresh token', async () => {
      const tk = tokensOf(await c.exchange(app, user, await c.code(app, user)), 30);
      const spare = tokensOf(await c.exchange(app, user, await c.code(app, user)), 30);
      clock.advance(29_000);
      assert.equal((await c.info(user.user_id, tk.access_token)).body.code, 1);
      clock.advance(1000);
      assertLoginFailure(await c.info(user.user_id, tk.access_token), -2013);
      const renewed = tokensOf(await c.refresh(app, user, tk.refresh_token), 30);
      assert.equal((await c.info(user.user_id, renewed.access_token)).body.code, 1);
      clock.advance(30_000);
      assertLoginFailure(await c.refresh(app, user, spare.refresh_token), -2012);
    });
  },
  { env: { AUTH_CODE_TTL_S: '2', ACCESS_TOKEN_TTL_S: '30', REFRESH_TOKEN_TTL_S: '60' } },
);
