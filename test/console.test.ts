// The operator console through app.inject(): sign-in with the operator's token (a session cookie,
// never the token), bearer access for scripts, CSRF, approving an application (the permission
// changes at once), the audit trail of console and operator-API decisions, search, webhook health,
// counters and the ledger check, the language choice, and the end of every session when
// ADMIN_TOKEN changes.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { App } from '../src/http/types.js';
import { ADMIN_TOKEN, adminHeaders, describeStores, startTestApp, storeAcrossInstances } from './helpers/app.js';
import { applyForPermission, createBot, createUsers, type TestUser } from './helpers/factories.js';
import { pageClient, type PageClient } from './helpers/pages.js';
import { storesUnderTest } from './helpers/stores.js';

/** Signs in to the console of `app` with `token`: the browser, and its console session's cookie. */
async function signInTo(app: App, name: string, token = ADMIN_TOKEN): Promise<{ client: PageClient; cookie: string }> {
  const client = pageClient(app, '');
  await client.get('/console/sign-in');
  const res = await client.post('/console/sign-in', { token, name });
  assert.equal(res.status, 303);
  assert.equal(res.headers.location, '/console/');
  const cookie = /op_console=[^;]+/.exec(String(res.headers['set-cookie']))?.[0] ?? assert.fail('no op_console cookie');
  return { client, cookie };
}

await describeStores('operator console', (t) => {
  const app = () => t().app;
  const signedIn = async (name = 'Ops Olga'): Promise<PageClient> => (await signInTo(app(), name)).client;

  it('sends browsers to sign in, answers 401 to other clients, and lets the bearer token through', async () => {
    const browser = await app().inject({ method: 'GET', url: '/console/', headers: { accept: 'text/html' } });
    assert.equal(browser.statusCode, 303);
    assert.equal(browser.headers.location, '/console/sign-in');
    const script = await app().inject({ method: 'GET', url: '/console/audit' });
    assert.equal(script.statusCode, 401);
    assert.deepEqual(script.json(), { error: 'unauthorized', message: 'missing or wrong bearer token' });
    const bearer = await app().inject({ method: 'GET', url: '/console/audit', headers: adminHeaders });
    assert.equal(bearer.statusCode, 200);
    assert.match(bearer.body, /<h1>Audit trail<\/h1>/);
  });

  it('signs in with the token (the cookie is not the token), refuses a wrong one and a form without CSRF', async () => {
    const client = pageClient(app(), '');
    const form = await client.get('/console/sign-in');
    assert.equal(form.status, 200);
    assert.match(form.body, /<input id="token" type="password" name="token"/);
    const wrong = await client.post('/console/sign-in', { token: 'not-the-operator-token' });
    assert.equal(wrong.status, 303);
    assert.equal(wrong.headers.location, '/console/sign-in?wrong=1');
    const forged = await client.post('/console/sign-in', { token: ADMIN_TOKEN }, { csrf: 'nope' });
    assert.equal(forged.status, 403);
    const ok = await client.post('/console/sign-in', { token: ADMIN_TOKEN, name: 'Olga' });
    assert.equal(ok.status, 303);
    const set = String(ok.headers['set-cookie']);
    assert.match(set, /op_console=[\w-]{20,}; Path=\/console; HttpOnly; SameSite=Strict/);
    assert.ok(!set.includes(ADMIN_TOKEN), 'the cookie is not the token');
    const home = await client.get('/console/');
    assert.equal(home.status, 200);
    assert.match(home.body, /Signed in as\s+<strong>Olga<\/strong>/);
  });

  it('refuses a sign-in name that would read as the operator API in the audit trail', async () => {
    const client = pageClient(app(), '');
    await client.get('/console/sign-in');
    for (const name of [
      'operator API (bearer token)',
      '  Operator  api (Bearer Token) ',
      'ｏｐｅｒａｔｏｒ ＡＰＩ',
      'bearer-token',
    ]) {
      const refused = await client.post('/console/sign-in', { token: ADMIN_TOKEN, name });
      assert.equal(refused.status, 400, name);
      assert.match(
        refused.body,
        /role="alert">That name would read as the operator API in the audit trail; pick another\.</,
      );
      assert.match(refused.body, /name="csrf" value="[^"]+"/, 'the form is there to try again');
      assert.ok(!String(refused.headers['set-cookie']).includes('op_console='), 'no session');
    }
    const audit = await app().inject({ method: 'GET', url: '/console/audit', headers: adminHeaders });
    assert.ok(
      !/<td>[^<]*(operator|bearer)[^<]*<\/td>\s*<td><code>console.sign_in/i.test(audit.body),
      'no such sign-in recorded',
    );
    assert.equal((await client.post('/console/sign-in', { token: ADMIN_TOKEN, name: 'Olga, operator' })).status, 303);
  });

  it('sets the pre-sign-in cookie again only when it has the form it is made in', async () => {
    const preOf = (r: { headers: Record<string, unknown> }) =>
      /op_console_pre=([^;]*);/.exec(String(r.headers['set-cookie']))?.[1] ?? assert.fail('no op_console_pre');
    const made = preOf(await app().inject({ method: 'GET', url: '/console/sign-in' }));
    assert.match(made, /^[\w-]{32}$/);
    const kept = await app().inject({
      method: 'GET',
      url: '/console/sign-in',
      headers: { cookie: `op_console_pre=${made}` },
    });
    assert.equal(preOf(kept), made, 'its own value is kept');
    for (const sent of ['x', `${made}x`, 'A'.repeat(31) + '=', 'evil, op_console=planted"']) {
      const res = await app().inject({
        method: 'GET',
        url: '/console/sign-in',
        headers: { cookie: `op_console_pre=${sent}` },
      });
      assert.equal(res.statusCode, 200);
      const pre = preOf(res);
      assert.match(pre, /^[\w-]{32}$/, `a fresh value instead of ${sent}`);
      assert.ok(!String(res.headers['set-cookie']).includes('planted'), 'nothing of it is echoed');
    }
  });

  it('approves an application: the permission is granted at once, and the audit trail says who', async () => {
    const [dev] = (await createUsers(app(), 1)) as [TestUser];
    const bot = await createBot(app(), dev.user_id, 'Helper <b>');
    const approveId = (await applyForPermission(app(), bot.bot_user_id, 'publish_bot')).id;
    const rejectId = (await applyForPermission(app(), bot.bot_user_id, 'subscription_account')).id;
    const client = await signedIn('Olga');
    const home = await client.get('/console/');
    assert.ok(home.body.includes('Helper &lt;b&gt;'), 'bot name escaped');
    assert.ok(home.body.includes(`/console/applications/${approveId}/approve`), 'approve form');

    const forged = await client.post(`/console/applications/${approveId}/approve`, {}, { csrf: 'forged' });
    assert.equal(forged.status, 403);
    const approved = await client.post(`/console/applications/${approveId}/approve`, { note: 'looks fine' });
    assert.equal(approved.status, 303);
    assert.equal(approved.headers.location, '/console/?done=decided');
    assert.deepEqual(
      await t()
        .services.developers.bot(dev.user_id, bot.bot_user_id)
        .then((b) => b.permissions),
      ['publish_bot'],
    );

    const api = await app().inject({
      method: 'POST',
      url: `/internal/v1/permission-applications/${rejectId}/reject`,
      headers: adminHeaders,
    });
    assert.equal(api.statusCode, 200);
    const audit = await client.get('/console/audit');
    assert.match(
      audit.body,
      /<td>Olga<\/td>\s*<td><code>application.approve<\/code><\/td>\s*<td>[^<]*publish_bot<\/td>\s*<td>looks fine<\/td>/,
    );
    assert.match(audit.body, /<td>operator API \(bearer token\)<\/td>\s*<td><code>application.reject<\/code><\/td>/);
    assert.match(audit.body, /<td>Olga<\/td>\s*<td><code>console.sign_in<\/code><\/td>/);
  });

  it('searches bots and apps, shows webhook health, counters and the ledger check', async () => {
    const [dev] = (await createUsers(app(), 1)) as [TestUser];
    const bot = await createBot(app(), dev.user_id, 'Findable_%Bot');
    const client = await signedIn();
    const found = await client.get(`/console/bots?q=${encodeURIComponent('_%Bot')}`);
    assert.ok(found.body.includes(`/console/bots/${bot.bot_user_id}`), 'found by a literal _%');
    const none = await client.get('/console/bots?q=zzzz-nothing');
    assert.match(none.body, /Nothing found\./);
    const health = await client.get(`/console/bots/${bot.bot_user_id}`);
    assert.equal(health.status, 200);
    assert.match(health.body, /<dt>Pending updates<\/dt>\s*<dd>0<\/dd>/);
    assert.match(health.body, /<dt>Deliveries in the last hour<\/dt>\s*<dd>0 \(0 failed\)<\/dd>/);
    const counters = await client.get('/console/health');
    assert.match(counters.body, /The ledger balances: every invariant holds\./);
    assert.match(counters.body, /<code>user.upserted<\/code>/);
  });

  it('answers a URL the router refuses, and an unknown path, with its own page, not JSON', async () => {
    const client = await signedIn();
    const page = async (url: string, status: number, text: RegExp) => {
      const res = await client.get(url, { accept: 'text/html' });
      assert.equal(res.status, status, url);
      assert.match(String(res.headers['content-type']), /^text\/html/, url);
      assert.match(res.body, /<h1>That didn&#39;t work<\/h1>/, url);
      assert.match(res.body, text, url);
      assert.match(res.body, /<a href="\/console\/">Back to the console<\/a>/, url);
    };
    await page('/console/bots/%FF', 400, /<p>Url: malformed percent-escape or invalid UTF-8\.<\/p>/);
    await page('/console/nope', 404, /<p>No such endpoint\.<\/p>/);
    await page('/console/nope?x=%FF', 400, /<p>Querystring: malformed percent-escape or invalid UTF-8\.<\/p>/);
    // An id as long as its schema allows (128 characters, astral ones two UTF-16 units each) is routed.
    await page(`/console/bots/${encodeURIComponent('\u{1F600}'.repeat(128))}`, 404, /<p>Unknown bot\.<\/p>/);
  });

  it('speaks Simplified Chinese when Accept-Language asks for it', async () => {
    const res = await app().inject({
      method: 'GET',
      url: '/console/sign-in',
      headers: { 'accept-language': 'zh-CN,zh;q=0.9' },
    });
    assert.match(res.body, /<html lang="zh-CN">/);
    assert.ok(res.body.includes('<h1>登录运营控制台</h1>'), 'Chinese heading');
  });
});

for (const store of await storesUnderTest()) {
  await describe(`operator console across a restart [${store}]`, () => {
    const shared = storeAcrossInstances(store);
    /** An instance on the one store, started with `token` as ADMIN_TOKEN; closed after `body`. */
    const withToken = async (token: string, body: (app: App) => Promise<void>) => {
      const running = await startTestApp(store, { ...shared, env: { ADMIN_TOKEN: token } });
      try {
        await body(running.app);
      } finally {
        await running.close();
      }
    };
    const audit = (app: App, cookie: string) =>
      app.inject({ method: 'GET', url: '/console/audit', headers: { cookie, accept: 'text/html' } });

    it('keeps a session while ADMIN_TOKEN stays, and ends it once ADMIN_TOKEN changes', async () => {
      let cookie = '';
      await withToken(ADMIN_TOKEN, async (app) => {
        cookie = (await signInTo(app, 'Olga')).cookie;
        assert.equal((await audit(app, cookie)).statusCode, 200);
      });
      await withToken(ADMIN_TOKEN, async (app) => {
        const same = await audit(app, cookie);
        assert.equal(same.statusCode, 200, 'the same token: still signed in after a restart');
        assert.match(same.body, /<h1>Audit trail<\/h1>/);
      });
      const rotated = 'rotated-admin-token-9876543210';
      await withToken(rotated, async (app) => {
        const old = await audit(app, cookie);
        const unknown = await audit(app, `op_console=${randomBytes(24).toString('base64url')}`);
        assert.equal(old.statusCode, 303, "the old token's session is over");
        assert.deepEqual([old.statusCode, old.headers.location], [unknown.statusCode, unknown.headers.location]);
        assert.equal(old.headers.location, '/console/sign-in');
        const script = await app.inject({ method: 'GET', url: '/console/audit', headers: { cookie } });
        assert.equal(script.statusCode, 401);
        const fresh = (await signInTo(app, 'Olga', rotated)).cookie;
        assert.equal((await audit(app, fresh)).statusCode, 200, 'the new token signs in');
      });
    });
  });
}
