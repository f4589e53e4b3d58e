// --demo: the Demo App signs a user in as a real client would (PKCE, the authorize page, the token
// endpoint, POST /openapi/user/info) and its callback shows who signed in; the printed curl lines
// call a current (not deprecated) route.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { buildApp } from '../app.js';
import type { App } from '../http/types.js';
import { adminHeaders, describeStores } from '../../test/helpers/app.js';
import { allow } from '../../test/helpers/authorize.js';
import { demoClient } from './callback.js';
import { describeDemo, ensureDemo, type Demo } from './demo.js';

const ALICE_WALLET = `0x${'1'.repeat(40)}`;

await describeStores('demo client: /demo/login and /demo/callback', (t) => {
  let demo: Demo;
  let app: App;
  let session: string;

  before(async () => {
    demo = await ensureDemo(t().services);
    app = await buildApp(t().services, {
      extraRoutes: (a) => {
        demoClient(a, t().services, demo);
      },
    });
    const res = await app.inject({
      method: 'POST',
      url: '/internal/v1/sessions',
      headers: adminHeaders,
      payload: { user_id: demo.developerId },
    });
    assert.equal(res.statusCode, 200, res.body);
    session = res.json<{ cookie: string }>().cookie;
  });
  after(async () => app.close());

  /** /demo/login: the authorize page's parameters and the client's cookie (state.verifier). */
  const start = async () => {
    const res = await app.inject({ method: 'GET', url: '/demo/login' });
    assert.equal(res.statusCode, 302, res.body);
    const location = new URL(String(res.headers.location), 'http://in.test');
    assert.equal(location.pathname, '/oauth/authorize');
    const setCookie = String(res.headers['set-cookie']);
    assert.match(setCookie, /^demo_oauth=[\w-]+\.[\w-]{43}; Path=\/demo; HttpOnly; SameSite=Lax; Max-Age=600$/);
    return { params: Object.fromEntries(location.searchParams), cookie: setCookie.split(';')[0] ?? '' };
  };
  const callback = (url: URL, cookie: string) =>
    app.inject({ method: 'GET', url: `${url.pathname}${url.search}`, headers: { cookie } });

  it('Allow leads to a page showing the signed-in user, exchanged with PKCE', async () => {
    const { params, cookie } = await start();
    assert.deepEqual(
      { ...params, state: undefined, code_challenge: undefined },
      {
        app_id: demo.app.app_id,
        redirect_uri: `${t().services.config.publicUrl}/demo/callback`,
        scope: 'moment',
        grant_type: 'authorization_code',
        response_type: 'code',
        state: undefined,
        code_challenge: undefined,
        code_challenge_method: 'S256',
      },
    );
    const back = await allow(app, params, session);
    assert.equal(`${back.origin}${back.pathname}`, params.redirect_uri);
    const res = await callback(back, cookie);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(String(res.headers['content-security-policy']), /^default-src 'none'/);
    assert.match(res.body, /<h1>Signed in as Alice<\/h1>/);
    assert.match(res.body, new RegExp(`<dd>${ALICE_WALLET}</dd>`));
    assert.match(String(res.headers['set-cookie']), /^demo_oauth=; Path=\/demo;.* Max-Age=0$/);
  });

  it('the verifier is what unlocks the code: another one is refused (-2011), the right one then works', async () => {
    const { params, cookie } = await start();
    const back = await allow(app, params, session);
    const [state] = cookie.split('.');
    const wrong = await callback(back, `${state ?? ''}.${'x'.repeat(43)}`);
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /The code was not accepted/);
    assert.match(wrong.body, /code invalid \(-2011\)/);
    const right = await callback(back, cookie);
    assert.equal(right.statusCode, 200, right.body);
    assert.match(right.body, /Signed in as Alice/);
  });

  it('a callback this browser did not start, or a cancelled one, is a page saying so', async () => {
    const { params, cookie } = await start();
    const back = await allow(app, params, session);
    const stranger = await callback(back, 'demo_oauth=other.state');
    assert.equal(stranger.statusCode, 400);
    assert.match(stranger.body, /This sign-in was not started here/);
    const cancelled = await callback(
      new URL(`http://x/demo/callback?error=access_denied&state=${params.state}`),
      cookie,
    );
    assert.equal(cancelled.statusCode, 400);
    assert.match(cancelled.body, /Sign-in cancelled/);
  });

  it('the printed curl lines call a current route: 200 with the key alone, no Deprecation header', async () => {
    const text = describeDemo(demo, 'http://in.test');
    const m = /curl -s -H 'X-API-KEY: (\S+)' 'http:\/\/in\.test([^']+)'/.exec(text);
    assert.ok(m?.[1] !== undefined && m[2] !== undefined, text);
    const res = await app.inject({ method: 'GET', url: m[2], headers: { 'x-api-key': m[1] } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers.deprecation, undefined);
    const body = res.json<{ code: number; data: { name: string }[] }>();
    assert.deepEqual(
      { code: body.code, names: body.data.map((u) => u.name).sort() },
      { code: 1, names: ['Bob', 'Carol'] },
    );
    assert.doesNotMatch(text, /\/openapi\/user\/info/);
  });
});
