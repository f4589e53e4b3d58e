// OAuth extras for today's clients (issue 18), all additive: PKCE S256 (RFC 7636) through the
// authorize page and both token-exchange methods, token revocation (RFC 7009) and authorization
// server metadata (RFC 8414). Clients that use none of it are covered by test/login.test.ts.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { describeStores, FakeClock } from './helpers/app.js';
import { allow, openAuthorize, pkcePair } from './helpers/authorize.js';
import {
  createApp,
  createSessionCookie,
  createUsers,
  signedHeaders,
  type Creds,
  type TestUser,
} from './helpers/factories.js';
import { listeningPort, rawRequest } from './helpers/raw-http.js';

const CB = 'https://client.example/cb';
const BASE = 'https://platform.example';
const SUCCESS_NULL = { code: 1, data: null, message: 'success', success: true };
const BAD_CREDENTIALS = { code: 401, data: null, message: 'Bad Request', success: false };
const failure = (code: number, message: string) => ({ code, data: null, message, success: false });
const CODE_INVALID = failure(-2011, 'code invalid');
const TOKEN_INVALID = failure(-2015, 'access token check failed');
const REFRESH_FAILED = failure(-2012, 'refreshing the access token failed');

interface Tokens {
  access_token: string;
  refresh_token: string;
}

await describeStores(
  'OAuth extras: PKCE, revocation, metadata',
  (t) => {
    let alice: TestUser;
    let app: Creds;
    let other: Creds;
    let cookie: string;

    const send = async (o: InjectOptions) => {
      const res = await t().app.inject(o);
      return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
    };
    const loginParams = (o: Record<string, string> = {}) => ({
      app_id: app.app_id,
      redirect_uri: CB,
      scope: 'moment',
      grant_type: 'authorization_code',
      response_type: 'code',
      ...o,
    });
    const codeOf = async (o: Record<string, string> = {}) => {
      const code = (await allow(t().app, loginParams(o), cookie)).searchParams.get('code');
      assert.ok(code !== null, 'the redirect carries a code');
      return code;
    };
    const exchangeParams = (code: string, extra: Record<string, string>, creds = app) => ({
      grant_type: 'authorization_code',
      code,
      app_id: creds.app_id,
      app_secret: creds.app_secret,
      user_id: alice.user_id,
      ...extra,
    });
    const exchangeGet = (code: string, extra: Record<string, string> = {}) =>
      send({
        method: 'GET',
        url: `/openapi/oauth2/access_token?${new URLSearchParams(exchangeParams(code, extra)).toString()}`,
      });
    const exchangePost = (code: string, extra: Record<string, string> = {}) =>
      send({
        method: 'POST',
        url: '/openapi/oauth2/access_token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(exchangeParams(code, extra)).toString(),
      });
    const tokensOf = (r: { status: number; body: Record<string, unknown> }): Tokens => {
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.code, 1, JSON.stringify(r.body));
      const data = r.body.data;
      assert.ok(typeof data === 'object' && data !== null, JSON.stringify(r.body));
      const { access_token, refresh_token } = data as Record<string, unknown>;
      assert.ok(typeof access_token === 'string' && typeof refresh_token === 'string', 'both tokens');
      return { access_token, refresh_token };
    };
    const login = async (creds = app) => {
      const code = await t().services.oauth.issueCode(
        { app_id: creds.app_id, name: 'test app', owner_user_id: alice.user_id },
        alice.user_id,
        CB,
        'moment',
      );
      const r = await send({
        method: 'POST',
        url: '/openapi/oauth2/access_token',
        payload: exchangeParams(code, {}, creds),
      });
      return tokensOf(r);
    };
    const info = (accessToken: string) =>
      send({
        method: 'POST',
        url: `/openapi/user/info?user_id=${alice.user_id}`,
        headers: { access_token: accessToken },
      });
    const refresh = (refreshToken: string) =>
      send({
        method: 'POST',
        url: '/openapi/oauth2/refresh_token',
        payload: {
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          app_id: app.app_id,
          app_secret: app.app_secret,
          user_id: alice.user_id,
        },
      });
    const revokeForm = (fields: Record<string, string>, creds = app) =>
      send({
        method: 'POST',
        url: '/openapi/oauth2/revoke',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ app_id: creds.app_id, app_secret: creds.app_secret, ...fields }).toString(),
      });

    it('sets up a user, two apps and a session', async () => {
      [alice] = (await createUsers(t().app, 1)) as [TestUser];
      app = await createApp(t().app, alice.user_id, [CB]);
      other = await createApp(t().app, alice.user_id, [CB]);
      cookie = await createSessionCookie(t().app, alice.user_id);
    });

    // ---- PKCE ----

    it('a code issued with an S256 challenge exchanges with its verifier, by GET and by POST', async () => {
      for (const exchange of [exchangeGet, exchangePost]) {
        const { verifier, challenge } = pkcePair();
        const code = await codeOf({ code_challenge: challenge, code_challenge_method: 'S256' });
        const tk = tokensOf(await exchange(code, { code_verifier: verifier }));
        assert.equal((await info(tk.access_token)).body.code, 1);
      }
    });

    it('a missing, wrong or malformed verifier fails like an invalid code and spends nothing', async () => {
      const { verifier, challenge } = pkcePair();
      const code = await codeOf({ code_challenge: challenge, code_challenge_method: 'S256' });
      const wrong = pkcePair().verifier;
      const extras: Record<string, string>[] = [
        {},
        { code_verifier: '' },
        { code_verifier: wrong },
        { code_verifier: `${verifier}x` },
      ];
      for (const extra of extras) {
        assert.deepEqual(await exchangeGet(code, extra), { status: 200, body: CODE_INVALID }, JSON.stringify(extra));
        assert.deepEqual(await exchangePost(code, extra), { status: 200, body: CODE_INVALID }, JSON.stringify(extra));
      }
      tokensOf(await exchangePost(code, { code_verifier: verifier }));
      // The code is now used: its own verifier cannot use it again.
      assert.deepEqual(await exchangeGet(code, { code_verifier: verifier }), { status: 200, body: CODE_INVALID });
    });

    it('a verifier outside 43-128 unreserved characters fails even when its challenge matches', async () => {
      const short = 'a'.repeat(42);
      const bad = `${'a'.repeat(42)}!`;
      for (const verifier of [short, bad]) {
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        const code = await codeOf({ code_challenge: challenge, code_challenge_method: 'S256' });
        assert.deepEqual(await exchangeGet(code, { code_verifier: verifier }), { status: 200, body: CODE_INVALID });
      }
      const longest = 'A1-._~'.repeat(21) + 'xy';
      assert.equal(longest.length, 128);
      const challenge = createHash('sha256').update(longest).digest('base64url');
      tokensOf(
        await exchangeGet(await codeOf({ code_challenge: challenge, code_challenge_method: 'S256' }), {
          code_verifier: longest,
        }),
      );
    });

    it('a code issued without a challenge works without a verifier, and refuses one sent anyway', async () => {
      tokensOf(await exchangeGet(await codeOf()));
      const code = await codeOf();
      assert.deepEqual(await exchangeGet(code, { code_verifier: pkcePair().verifier }), {
        status: 200,
        body: CODE_INVALID,
      });
      tokensOf(await exchangeGet(code));
    });

    it('the page refuses plain, a missing method, a method alone and a malformed challenge', async () => {
      const { challenge } = pkcePair();
      const cases: [Record<string, string>, RegExp][] = [
        [{ code_challenge: challenge, code_challenge_method: 'plain' }, /code_challenge_method must be S256/],
        [{ code_challenge: challenge }, /code_challenge_method must be S256/],
        [{ code_challenge_method: 'S256' }, /code_challenge_method needs code_challenge/],
        [{ code_challenge: `${challenge}=`, code_challenge_method: 'S256' }, /code_challenge must be 43 characters/],
      ];
      for (const [params, problem] of cases) {
        const page = await openAuthorize(t().app, loginParams(params), cookie);
        assert.equal(page.status, 400, JSON.stringify(params));
        assert.match(page.body, problem);
        assert.doesNotMatch(page.body, /<form/);
      }
    });

    // ---- redirect_uri at the exchange (RFC 6749 section 4.1.3) ----

    it('a redirect_uri other than the code was issued for fails like an invalid code and spends nothing', async () => {
      const code = await codeOf();
      for (const redirect of [`${CB}/other`, `${CB}?`, CB.toUpperCase(), 'https://evil.example/cb']) {
        assert.deepEqual(await exchangeGet(code, { redirect_uri: redirect }), { status: 200, body: CODE_INVALID });
        assert.deepEqual(await exchangePost(code, { redirect_uri: redirect }), { status: 200, body: CODE_INVALID });
      }
      tokensOf(await exchangePost(code, { redirect_uri: CB }));
      // Not given (or empty) is not checked: the contract's clients send none.
      tokensOf(await exchangeGet(await codeOf(), { redirect_uri: '' }));
    });

    it('empty PKCE parameters on the page are not given: the code exchanges without a verifier', async () => {
      const empty = { code_challenge: '', code_challenge_method: '' };
      const code = await codeOf(empty);
      tokensOf(await exchangeGet(code));
      // Either one empty beside the other given is that one alone.
      const { challenge } = pkcePair();
      for (const [params, problem] of [
        [{ code_challenge: challenge, code_challenge_method: '' }, /code_challenge_method must be S256/],
        [{ code_challenge: '', code_challenge_method: 'S256' }, /code_challenge_method needs code_challenge/],
      ] as const) {
        const page = await openAuthorize(t().app, loginParams(params), cookie);
        assert.equal(page.status, 400, JSON.stringify(params));
        assert.match(page.body, problem);
      }
    });

    // ---- Revocation ----

    it('revoking a refresh token ends its family: the refresh and the access tokens from it fail', async () => {
      const first = await login();
      const second = tokensOf(await refresh(first.refresh_token));
      assert.deepEqual(await revokeForm({ token: second.refresh_token, token_type_hint: 'refresh_token' }), {
        status: 200,
        body: SUCCESS_NULL,
      });
      assert.deepEqual(await refresh(second.refresh_token), { status: 200, body: REFRESH_FAILED });
      for (const access of [first.access_token, second.access_token]) {
        assert.deepEqual(await info(access), { status: 200, body: TOKEN_INVALID });
      }
    });

    it('revoking an access token (JSON body, any hint) makes it fail Token-header calls with -2015', async () => {
      for (const hint of [undefined, 'access_token', 'refresh_token', 'something_else']) {
        const tk = await login();
        assert.equal((await info(tk.access_token)).body.code, 1);
        const r = await send({
          method: 'POST',
          url: '/openapi/oauth2/revoke',
          payload: {
            app_id: app.app_id,
            app_secret: app.app_secret,
            token: tk.access_token,
            ...(hint !== undefined ? { token_type_hint: hint } : {}),
          },
        });
        assert.deepEqual(r, { status: 200, body: SUCCESS_NULL }, String(hint));
        assert.deepEqual(await info(tk.access_token), { status: 200, body: TOKEN_INVALID }, String(hint));
      }
    });

    it("an unknown token or another app's token answers 200 and changes nothing", async () => {
      assert.deepEqual(await revokeForm({ token: 'no-such-token' }), { status: 200, body: SUCCESS_NULL });
      const theirs = await login(other);
      for (const token of [theirs.access_token, theirs.refresh_token]) {
        assert.deepEqual(await revokeForm({ token }), { status: 200, body: SUCCESS_NULL });
      }
      assert.equal((await info(theirs.access_token)).body.code, 1, "the other app's token still works");
    });

    it('wrong app credentials are refused as on the token endpoints, and revoke nothing', async () => {
      const tk = await login();
      assert.deepEqual(await revokeForm({ token: tk.refresh_token }, { ...app, app_secret: 'wrong-secret' }), {
        status: 401,
        body: BAD_CREDENTIALS,
      });
      assert.equal((await info(tk.access_token)).body.code, 1, 'the token still works');
    });

    // ---- The token endpoint as the metadata describes it ----

    const tokenForm = (url: string, fields: Record<string, string>) =>
      send({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(fields).toString(),
      });
    /** What an RFC 6749 client sends (client_secret_post), plus the user_id the contract requires. */
    const standard = (fields: Record<string, string>) => ({
      client_id: app.app_id,
      client_secret: app.app_secret,
      user_id: alice.user_id,
      ...fields,
    });
    const paramError = (detail: string) => ({ error: 'Bad Request', code: 401, message: 'Param error', detail });

    it('the token endpoint takes grant_type refresh_token and answers as the refresh endpoint does', async () => {
      const first = await login();
      const renewed = tokensOf(
        await tokenForm(
          '/openapi/oauth2/access_token',
          standard({ grant_type: 'refresh_token', refresh_token: first.refresh_token }),
        ),
      );
      assert.equal((await info(renewed.access_token)).body.code, 1);
      // Rotation as on the refresh endpoint: the old refresh token again fails there and here.
      assert.deepEqual(await refresh(first.refresh_token), { status: 200, body: REFRESH_FAILED });
      assert.deepEqual(
        await tokenForm(
          '/openapi/oauth2/access_token',
          standard({ grant_type: 'refresh_token', refresh_token: renewed.refresh_token }),
        ),
        { status: 200, body: REFRESH_FAILED },
        'the family was revoked by the reuse',
      );
      assert.deepEqual(await tokenForm('/openapi/oauth2/access_token', standard({ grant_type: 'refresh_token' })), {
        status: 401,
        body: paramError('refresh_token: required'),
      });
    });

    it('client_id and client_secret stand for app_id and app_secret at both token endpoints', async () => {
      const tk = tokensOf(
        await tokenForm(
          '/openapi/oauth2/access_token',
          standard({ grant_type: 'authorization_code', code: await codeOf() }),
        ),
      );
      tokensOf(
        await tokenForm(
          '/openapi/oauth2/refresh_token',
          standard({ grant_type: 'refresh_token', refresh_token: tk.refresh_token }),
        ),
      );
      // Both spellings given alike are one parameter.
      tokensOf(await exchangePost(await codeOf(), { client_id: app.app_id, client_secret: app.app_secret }));
      // The seed's spelling sent empty beside the standard one that gives it (SDKs send unset fields so).
      tokensOf(
        await exchangePost(await codeOf(), {
          app_id: '',
          app_secret: '',
          client_id: app.app_id,
          client_secret: app.app_secret,
        }),
      );
      // A wrong secret under the other spelling is a wrong secret.
      const wrongSecret = standard({ grant_type: 'authorization_code', code: await codeOf(), client_secret: 'x' });
      assert.deepEqual(await tokenForm('/openapi/oauth2/access_token', wrongSecret), {
        status: 401,
        body: BAD_CREDENTIALS,
      });
    });

    it('app_id and client_id (or the secrets) that differ are a Param error, and use nothing up', async () => {
      const code = await codeOf();
      assert.deepEqual(await exchangePost(code, { client_id: other.app_id }), {
        status: 401,
        body: paramError('client_id: differs from app_id'),
      });
      assert.deepEqual(await exchangeGet(code, { client_secret: other.app_secret }), {
        status: 401,
        body: paramError('client_secret: differs from app_secret'),
      });
      const tk = tokensOf(await exchangeGet(code));
      const differing = {
        grant_type: 'refresh_token',
        refresh_token: tk.refresh_token,
        app_id: app.app_id,
        app_secret: app.app_secret,
        user_id: alice.user_id,
        client_id: other.app_id,
      };
      for (const url of ['/openapi/oauth2/refresh_token', '/openapi/oauth2/access_token']) {
        assert.deepEqual(await tokenForm(url, differing), {
          status: 401,
          body: paramError('client_id: differs from app_id'),
        });
      }
      tokensOf(await refresh(tk.refresh_token));
    });

    it('revocation takes client_id and client_secret too, as the metadata advertises (client_secret_post)', async () => {
      const tk = await login();
      const standardRevoke = (fields: Record<string, string>) =>
        tokenForm('/openapi/oauth2/revoke', {
          client_id: app.app_id,
          client_secret: app.app_secret,
          token: tk.refresh_token,
          ...fields,
        });
      assert.deepEqual(await standardRevoke({ client_id: other.app_id, app_id: app.app_id }), {
        status: 401,
        body: paramError('client_id: differs from app_id'),
      });
      assert.deepEqual(await standardRevoke({ client_secret: 'wrong-secret' }), {
        status: 401,
        body: BAD_CREDENTIALS,
      });
      assert.deepEqual(await standardRevoke({ token: '' }), {
        status: 401,
        body: paramError('token: must NOT have fewer than 1 characters'),
      });
      assert.equal((await info(tk.access_token)).body.code, 1, 'nothing was revoked yet');
      assert.deepEqual(await standardRevoke({}), { status: 200, body: SUCCESS_NULL });
      assert.deepEqual(await info(tk.access_token), { status: 200, body: TOKEN_INVALID });
    });

    // ---- HTTP Basic client authentication (RFC 6749 section 2.3.1, client_secret_basic) ----

    /** RFC 6749 Appendix B: each part form-urlencoded, then joined by a colon and in base64. */
    const basic = (
      id: string,
      secret: string,
      encode = (x: string) => new URLSearchParams({ x }).toString().slice(2),
    ) => `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`;
    const appBasic = () => basic(app.app_id, app.app_secret);
    /** Every character percent-encoded: what a strict client may send, decoded to the same values. */
    const everyEscaped = (x: string) => [...Buffer.from(x)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
    const withBasic = (url: string, fields: Record<string, string>, authorization = appBasic()) =>
      send({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization },
        payload: new URLSearchParams(fields).toString(),
      });
    const BASIC_DIFFERS = (name: string) =>
      paramError(`${name}: differs from the Basic credentials of the Authorization header`);

    it('Basic credentials stand for app_id and app_secret at both token endpoints, by POST and by GET', async () => {
      const user_id = alice.user_id;
      const tk = tokensOf(
        await withBasic('/openapi/oauth2/access_token', {
          grant_type: 'authorization_code',
          code: await codeOf(),
          user_id,
        }),
      );
      const renewed = tokensOf(
        await withBasic('/openapi/oauth2/refresh_token', {
          grant_type: 'refresh_token',
          refresh_token: tk.refresh_token,
          user_id,
        }),
      );
      const again = tokensOf(
        await withBasic(
          '/openapi/oauth2/access_token',
          { grant_type: 'refresh_token', refresh_token: renewed.refresh_token, user_id },
          basic(app.app_id, app.app_secret, everyEscaped),
        ),
      );
      const query = new URLSearchParams({ grant_type: 'authorization_code', code: await codeOf(), user_id });
      tokensOf(
        await send({
          method: 'GET',
          url: `/openapi/oauth2/access_token?${query.toString()}`,
          // The scheme's name is case-insensitive (RFC 9110 section 11.1).
          headers: { authorization: appBasic().replace('Basic', 'bAsIc') },
        }),
      );
      assert.equal((await info(again.access_token)).body.code, 1);
    });

    it('Basic credentials with the same values as parameters are fine; differing ones are a Param error', async () => {
      const code = await codeOf();
      const fields = { grant_type: 'authorization_code', code, user_id: alice.user_id };
      const url = '/openapi/oauth2/access_token';
      const wrongBasic = basic(app.app_id, 'wrong-secret');
      const differing: [Record<string, string>, string, string][] = [
        [{ app_id: other.app_id }, appBasic(), 'app_id'],
        [{ client_id: other.app_id }, appBasic(), 'client_id'],
        [{ app_secret: other.app_secret }, appBasic(), 'app_secret'],
        [{ client_secret: 'wrong-secret' }, appBasic(), 'client_secret'],
        // A right App Secret beside Basic credentials holding a wrong one: still two methods that disagree.
        [{ client_secret: app.app_secret }, wrongBasic, 'client_secret'],
      ];
      for (const [extra, authorization, name] of differing) {
        assert.deepEqual(await withBasic(url, { ...fields, ...extra }, authorization), {
          status: 401,
          body: BASIC_DIFFERS(name),
        });
      }
      // None of those used the code up.
      const same = {
        app_id: app.app_id,
        client_id: app.app_id,
        app_secret: app.app_secret,
        client_secret: app.app_secret,
      };
      // Empty parameters beside Basic credentials are parameters not given.
      tokensOf(await withBasic(url, { ...fields, app_id: '', app_secret: '', client_id: '' }));
      const tk = tokensOf(await withBasic(url, { ...fields, ...same, code: await codeOf() }));
      assert.deepEqual(
        await withBasic('/openapi/oauth2/revoke', { token: tk.refresh_token, client_id: other.app_id }),
        { status: 401, body: BASIC_DIFFERS('client_id') },
      );
      assert.equal((await info(tk.access_token)).body.code, 1, 'nothing was revoked');
    });

    it('a wrong Basic secret is refused as a wrong parameter secret, with a Basic challenge', async () => {
      const fields = { grant_type: 'authorization_code', code: await codeOf(), user_id: alice.user_id };
      const res = await t().app.inject({
        method: 'POST',
        url: '/openapi/oauth2/access_token',
        headers: { authorization: basic(app.app_id, 'wrong-secret') },
        payload: fields,
      });
      assert.deepEqual({ status: res.statusCode, body: res.json<unknown>() }, { status: 401, body: BAD_CREDENTIALS });
      assert.equal(res.headers['www-authenticate'], 'Basic realm="Open Platform", charset="UTF-8"');
      assert.equal(res.headers['cache-control'], 'no-store');
      // A wrong parameter secret gets the same body and no challenge: no Authorization header was tried.
      const param = await t().app.inject({
        method: 'POST',
        url: '/openapi/oauth2/access_token',
        payload: { ...fields, app_id: app.app_id, app_secret: 'wrong-secret' },
      });
      assert.deepEqual(
        { status: param.statusCode, body: param.json<unknown>() },
        { status: 401, body: BAD_CREDENTIALS },
      );
      assert.equal(param.headers['www-authenticate'], undefined);
      // The code is still unused, and the refresh endpoint and revocation refuse a wrong Basic secret alike.
      const tk = tokensOf(await withBasic('/openapi/oauth2/access_token', fields));
      const refreshFields = { grant_type: 'refresh_token', refresh_token: tk.refresh_token, user_id: alice.user_id };
      for (const [url, body] of [
        ['/openapi/oauth2/refresh_token', refreshFields],
        ['/openapi/oauth2/revoke', { token: tk.refresh_token }],
      ] as const) {
        assert.deepEqual(await withBasic(url, body, basic(app.app_id, 'wrong-secret')), {
          status: 401,
          body: BAD_CREDENTIALS,
        });
      }
      assert.deepEqual(await withBasic('/openapi/oauth2/revoke', { token: tk.refresh_token }), {
        status: 200,
        body: SUCCESS_NULL,
      });
      assert.deepEqual(await withBasic('/openapi/oauth2/refresh_token', refreshFields), {
        status: 200,
        body: REFRESH_FAILED,
      });
    });

    it('malformed Basic credentials are a Param error that says what is wrong, and use nothing up', async () => {
      const code = await codeOf();
      const fields = { grant_type: 'authorization_code', code, user_id: alice.user_id };
      const b64 = (text: string | Buffer) => `Basic ${Buffer.from(text).toString('base64')}`;
      const cases: [string, string][] = [
        ['Basic', 'Authorization: Basic needs one base64 token'],
        ['Basic   ', 'Authorization: Basic needs one base64 token'],
        ['Basic abc def', 'Authorization: Basic needs one base64 token'],
        ['Basic !!!!', 'Authorization: Basic credentials are not base64'],
        ['Basic a', 'Authorization: Basic credentials are not base64'],
        ['Basic YWJj=', 'Authorization: Basic credentials are not base64'],
        [b64('no-colon-here'), 'Authorization: Basic credentials need a colon between client_id and client_secret'],
        [b64(Buffer.from([0x61, 0x3a, 0xff])), 'Authorization: Basic credentials are not UTF-8'],
        [b64(`%ZZ:${app.app_secret}`), 'Authorization: client_id is not valid percent-encoding'],
        [b64(`${app.app_id}:%E0%A4%A`), 'Authorization: client_secret is not valid percent-encoding'],
        // Raw or percent-encoded, U+0000 never reaches the store (PostgreSQL answered 500 for it).
        [b64(`%00:${app.app_secret}`), 'Authorization: client_id: text must not contain U+0000'],
        [b64(`\0:${app.app_secret}`), 'Authorization: client_id: text must not contain U+0000'],
        [b64(`${app.app_id}:\0`), 'Authorization: client_secret: text must not contain U+0000'],
      ];
      for (const [authorization, detail] of cases) {
        assert.deepEqual(
          await withBasic('/openapi/oauth2/access_token', fields, authorization),
          { status: 401, body: paramError(detail) },
          authorization,
        );
      }
      assert.deepEqual(await withBasic('/openapi/oauth2/revoke', { token: 'x' }, 'Basic !!!!'), {
        status: 401,
        body: paramError('Authorization: Basic credentials are not base64'),
      });
      // Unpadded base64 is read (some clients drop the padding).
      tokensOf(await withBasic('/openapi/oauth2/access_token', fields, appBasic().replace(/=+$/, '')));
    });

    it('an Authorization header of another scheme is not client authentication, as before', async () => {
      const fields = { grant_type: 'authorization_code', code: await codeOf(), user_id: alice.user_id };
      const bearer = `Bearer ${Buffer.from(`${app.app_id}:${app.app_secret}`).toString('base64')}`;
      assert.deepEqual(await withBasic('/openapi/oauth2/access_token', fields, bearer), {
        status: 401,
        body: paramError('app_id: required'),
      });
      tokensOf(
        await withBasic(
          '/openapi/oauth2/access_token',
          { ...fields, app_id: app.app_id, app_secret: app.app_secret },
          'Bearer some-other-token',
        ),
      );
    });

    // ---- Bearer access tokens (RFC 6750) ----

    /** A Token-header call with these headers: status, body and the challenge, if any. */
    const tokenCall = async (path: 'info' | 'followers', headers: Record<string, string>, userId = alice.user_id) => {
      const res = await t().app.inject({ method: 'POST', url: `/openapi/user/${path}?user_id=${userId}`, headers });
      return {
        status: res.statusCode,
        body: res.json<Record<string, unknown>>(),
        challenge: res.headers['www-authenticate'],
      };
    };
    const INVALID_TOKEN = 'Bearer error="invalid_token"';

    it('Authorization: Bearer stands for the access_token header at both Token-header endpoints', async () => {
      const { access_token } = await login();
      for (const path of ['info', 'followers'] as const) {
        const seed = await tokenCall(path, { access_token });
        assert.equal(seed.status, 200);
        assert.equal(seed.body.code, 1, JSON.stringify(seed.body));
        // The scheme is case-insensitive (RFC 9110 section 11.1); sent both ways alike is fine.
        const alike: Record<string, string>[] = [
          { authorization: `Bearer ${access_token}` },
          { authorization: `bearer ${access_token}` },
          { authorization: `Bearer ${access_token}`, access_token },
          { authorization: `Bearer ${access_token}`, access_token: '' },
        ];
        for (const headers of alike) assert.deepEqual(await tokenCall(path, headers), seed, JSON.stringify(headers));
      }
    });

    it('the access_token header, when given, decides: a Bearer beside it (a gateway token, or malformed) is not read', async () => {
      const { access_token } = await login();
      const { access_token: another } = await login(other);
      for (const path of ['info', 'followers'] as const) {
        const seed = await tokenCall(path, { access_token: another });
        for (const authorization of [`Bearer ${access_token}`, 'Bearer a,b', 'Bearer a b'])
          assert.deepEqual(await tokenCall(path, { authorization, access_token: another }), seed, authorization);
      }
    });

    it('a Bearer token that fails answers the seed body with WWW-Authenticate: Bearer error="invalid_token"', async () => {
      const { access_token, refresh_token } = await login();
      const bearer = { authorization: `Bearer ${access_token}` };
      const clock = t().clock;
      assert.ok(clock instanceof FakeClock, 'the suite runs on a FakeClock');
      clock.advance(7_201_000);
      try {
        for (const path of ['info', 'followers'] as const) {
          assert.deepEqual(await tokenCall(path, bearer), {
            status: 200,
            body: failure(-2013, 'access token expired'),
            challenge: INVALID_TOKEN,
          });
          // Through the seed's header, the answer is as before: no challenge.
          assert.deepEqual(await tokenCall(path, { access_token }), {
            status: 200,
            body: failure(-2013, 'access token expired'),
            challenge: undefined,
          });
        }
      } finally {
        clock.advance(-7_201_000);
      }
      assert.deepEqual(await tokenCall('info', { authorization: 'Bearer not.a.token' }), {
        status: 200,
        body: TOKEN_INVALID,
        challenge: INVALID_TOKEN,
      });
      // A token for another user is no failed authentication: -2001, without the challenge.
      const [bob] = (await createUsers(t().app, 1)) as [TestUser];
      assert.deepEqual(await tokenCall('info', bearer, bob.user_id), {
        status: 200,
        body: failure(-2001, 'user login validity problem; log in again'),
        challenge: undefined,
      });
      assert.deepEqual(await revokeForm({ token: refresh_token }), { status: 200, body: SUCCESS_NULL });
      assert.deepEqual(await tokenCall('followers', bearer), {
        status: 200,
        body: TOKEN_INVALID,
        challenge: INVALID_TOKEN,
      });
      assert.deepEqual(await tokenCall('followers', { access_token }), {
        status: 200,
        body: TOKEN_INVALID,
        challenge: undefined,
      });
    });

    it('a malformed Bearer credential is a Param error; U+0000 and non-ASCII never reach the store', async () => {
      // `Bearer ${token ?? ''}`, as clients build it, is no token: the seed's answer to none.
      for (const authorization of ['Bearer', 'Bearer   '])
        assert.deepEqual(
          await tokenCall('info', { authorization }),
          { status: 200, body: TOKEN_INVALID, challenge: undefined },
          authorization,
        );
      const cases: [string, string][] = [
        ['Bearer a b', 'Authorization: Bearer needs one token'],
        ['Bearer a,b', 'Authorization: the Bearer token is not a b64token (RFC 6750 section 2.1)'],
        ['Bearer a=b', 'Authorization: the Bearer token is not a b64token (RFC 6750 section 2.1)'],
        ['Bearer a\u0000b', 'Authorization: the Bearer token is not a b64token (RFC 6750 section 2.1)'],
        ['Bearer caf\u00e9', 'Authorization: the Bearer token is not a b64token (RFC 6750 section 2.1)'],
      ];
      for (const [authorization, detail] of cases) {
        for (const path of ['info', 'followers'] as const) {
          assert.deepEqual(
            await tokenCall(path, { authorization }),
            { status: 401, body: paramError(detail), challenge: 'Bearer error="invalid_request"' },
            JSON.stringify(authorization),
          );
        }
      }
      // Raw bytes outside ASCII, as a socket sends them (Node reads header bytes as Latin-1).
      const port = await listeningPort(t().app);
      const raw = await rawRequest(
        port,
        `POST /openapi/user/info?user_id=${alice.user_id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer caf\u00c3\u00a9`,
      );
      assert.equal(raw.status, 401);
      assert.deepEqual(
        JSON.parse(raw.body),
        paramError('Authorization: the Bearer token is not a b64token (RFC 6750 section 2.1)'),
      );
    });

    it('an Authorization of another scheme leaves the access_token header to decide, as before', async () => {
      const { access_token } = await login();
      const seed = await tokenCall('info', { access_token });
      assert.deepEqual(await tokenCall('info', { access_token, authorization: appBasic() }), seed);
      assert.deepEqual(await tokenCall('info', { authorization: appBasic() }), {
        status: 200,
        body: TOKEN_INVALID,
        challenge: undefined,
      });
      // Only ASCII spaces part the scheme from its token (RFC 6750 section 2.1), as for the operator's.
      for (const space of ['\t', '\u00a0', '\u2003'])
        assert.deepEqual(
          await tokenCall('info', { authorization: `Bearer${space}${access_token}` }),
          { status: 200, body: TOKEN_INVALID, challenge: undefined },
          JSON.stringify(space),
        );
    });

    it('a Bearer header changes nothing on X-API-KEY and signed endpoints', async () => {
      const { access_token } = await login();
      const keyed = async (headers: Record<string, string>) => {
        const res = await t().app.inject({
          method: 'GET',
          url: `/openapi/user/info?user_id=${alice.user_id}`,
          headers,
        });
        return { status: res.statusCode, body: res.json<unknown>(), challenge: res.headers['www-authenticate'] };
      };
      const plain = await keyed({ 'x-api-key': app.api_key });
      assert.equal(plain.status, 200);
      for (const authorization of [`Bearer ${access_token}`, 'Bearer caf\u00e9', 'Bearer a\u0000b', 'Bearer'])
        assert.deepEqual(await keyed({ 'x-api-key': app.api_key, authorization }), plain, authorization);
      // Signed: each request with its own nonce; a wrong signature stays wrong whatever the Bearer.
      const signed = (o: { secret?: string } = {}) => signedHeaders(app, { ...o, now: t().clock.now() });
      for (const authorization of [`Bearer ${access_token}`, 'Bearer caf\u00e9']) {
        assert.deepEqual(await keyed({ ...signed(), authorization }), plain, authorization);
        assert.deepEqual(
          await keyed({ ...signed({ secret: 'wrong' }), authorization }),
          {
            status: 401,
            body: { error: 'Unauthorized', code: 401, message: 'signature mismatch' },
            challenge: undefined,
          },
          authorization,
        );
      }
      // An access token is no App Key: without X-API-KEY the key endpoint refuses as before.
      assert.deepEqual(await keyed({ authorization: `Bearer ${access_token}` }), {
        status: 400,
        body: { error: 'Bad Request', code: 400, message: 'You X-API-KEY is not available' },
        challenge: undefined,
      });
    });

    // ---- Metadata ----

    it('authorization server metadata names the endpoints, S256 and the scopes', async () => {
      const res = await t().app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.deepEqual(res.json(), {
        issuer: BASE,
        authorization_endpoint: `${BASE}/oauth/authorize`,
        token_endpoint: `${BASE}/openapi/oauth2/access_token`,
        revocation_endpoint: `${BASE}/openapi/oauth2/revoke`,
        refresh_endpoint: `${BASE}/openapi/oauth2/refresh_token`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        scopes_supported: ['moment', 'payment'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      });
    });
  },
  () => ({ env: { PUBLIC_URL: BASE }, clock: new FakeClock() }),
);
