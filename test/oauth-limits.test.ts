// Budgets of the login flow's writes (src/modules/oauth/limits.ts): one login's code exchanges and
// refreshes (300, then one every 10 s), one app's (RATE_LIMIT_TOKEN_APP_PER_S, ten seconds' worth at
// once) and one user's Allows on the authorize page (100, then one every 5 s). Refused, a token
// endpoint answers the login envelope with 429; the authorize page a 429 page; both with
// Retry-After and the RateLimit fields. Time moves with the FakeClock; nothing sleeps.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { describeStoresOnFakeClock, type TestApp } from './helpers/app.js';
import { hiddenFields, openAuthorize } from './helpers/authorize.js';
import { createApp, createSessionCookie, createUsers, type Creds, type TestUser } from './helpers/factories.js';

const CB = 'https://client.example/cb';
const LIMITED = { code: 429, data: null, message: 'rate limit exceeded', success: false };

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, unknown>;
}

/** Retry-After, RateLimit-Policy and RateLimit of an answer. */
const limitHeaders = (a: { headers: Record<string, unknown> }): unknown[] => [
  a.headers['retry-after'],
  a.headers['ratelimit-policy'],
  a.headers.ratelimit,
];

/** The token endpoints of one suite's app, as a client calls them (GET, query string). */
function tokenClient(t: () => TestApp) {
  const send = async (url: string, params: Record<string, string>): Promise<Answer> => {
    const res = await t().app.inject({ method: 'GET', url: `${url}?${new URLSearchParams(params).toString()}` });
    return { status: res.statusCode, body: res.json<Record<string, unknown>>(), headers: res.headers };
  };
  const creds = (app: Creds, user: TestUser) => ({
    app_id: app.app_id,
    app_secret: app.app_secret,
    user_id: user.user_id,
  });
  return {
    async code(app: Creds, user: TestUser): Promise<string> {
      const ref = await t().services.oauth.appForRedirect(app.app_id, CB);
      assert.ok(ref !== undefined, 'redirect URI registered');
      return t().services.oauth.issueCode(ref, user.user_id, CB, 'moment');
    },
    exchange: (app: Creds, user: TestUser, code: string) =>
      send('/openapi/oauth2/access_token', { grant_type: 'authorization_code', code, ...creds(app, user) }),
    /** A refresh at the refresh endpoint, or (`tokenEndpoint`) at the token endpoint with its refresh grant. */
    refresh: (app: Creds, user: TestUser, refreshToken: string, tokenEndpoint = false) =>
      send(tokenEndpoint ? '/openapi/oauth2/access_token' : '/openapi/oauth2/refresh_token', {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        ...creds(app, user),
      }),
  };
}

/** The refresh token of a successful token answer. */
function refreshOf(a: Answer): string {
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.equal(a.body.code, 1, JSON.stringify(a.body));
  const token = a.body.refresh_token;
  assert.ok(typeof token === 'string' && token !== '', 'a refresh token');
  return token;
}

/** A refused grant: exactly the login envelope with 429, and the bucket that refused it. */
function assertLimited(a: Answer, headers: unknown[]): void {
  assert.equal(a.status, 429, JSON.stringify(a.body));
  assert.deepEqual(a.body, LIMITED);
  assert.deepEqual(limitHeaders(a), headers);
}

const LOGIN_EMPTY = ['10', '"login";q=300;w=3000', '"login";r=0;t=10'];

await describeStoresOnFakeClock(
  'login-flow budgets: one login, one user',
  (t, clock) => {
    const c = tokenClient(t);

    it('one login looping refresh: 300 grants, then 429 on both refresh paths and the exchange; others unaffected; refills', async () => {
      const [owner, alice, bob] = (await createUsers(t().app, 3)) as [TestUser, TestUser, TestUser];
      const app = await createApp(t().app, owner.user_id);
      const other = await createApp(t().app, owner.user_id);
      let refresh = refreshOf(await c.exchange(app, alice, await c.code(app, alice)));
      // The exchange took the first of 300; the refreshes alternate between the two paths of the grant.
      for (let i = 1; i < 300; i++) refresh = refreshOf(await c.refresh(app, alice, refresh, i % 2 === 0));
      assertLimited(await c.refresh(app, alice, refresh), LOGIN_EMPTY);
      assertLimited(await c.refresh(app, alice, refresh, true), LOGIN_EMPTY);
      const code = await c.code(app, alice);
      assertLimited(await c.exchange(app, alice, code), LOGIN_EMPTY);

      // Another user of the app, and the same user with another app, keep their own budgets.
      refreshOf(await c.refresh(app, bob, refreshOf(await c.exchange(app, bob, await c.code(app, bob)))));
      refreshOf(await c.refresh(other, alice, refreshOf(await c.exchange(other, alice, await c.code(other, alice)))));

      clock.advance(9_500);
      assertLimited(await c.refresh(app, alice, refresh), ['1', '"login";q=300;w=3000', '"login";r=0;t=1']);
      clock.advance(1_500);
      // The refused refreshes spent nothing: the same token rotates now, and the budget is empty again.
      // (11 s refilled 1.1 grants: a tenth is left, so the next is 9 s away.)
      refresh = refreshOf(await c.refresh(app, alice, refresh));
      assertLimited(await c.exchange(app, alice, code), ['9', '"login";q=300;w=3000', '"login";r=0;t=9']);
      clock.advance(9_000);
      refreshOf(await c.exchange(app, alice, code));
    });

    it('RATE_LIMIT_TOKEN_APP_PER_S is not the per-login bound: its default lets 40 logins of one app in at once', async () => {
      const users = await createUsers(t().app, 41);
      const [owner] = users as [TestUser];
      const app = await createApp(t().app, owner.user_id);
      for (const user of users.slice(1)) refreshOf(await c.exchange(app, user, await c.code(app, user)));
    });
  },
  { env: { RATE_LIMITS: 'on' } },
);

await describeStoresOnFakeClock(
  'login-flow budgets: one app',
  (t, clock) => {
    const c = tokenClient(t);

    it('an app past RATE_LIMIT_TOKEN_APP_PER_S (2: 20 at once) is refused for every user; another app is not', async () => {
      const [owner, alice, bob] = (await createUsers(t().app, 3)) as [TestUser, TestUser, TestUser];
      const app = await createApp(t().app, owner.user_id);
      const other = await createApp(t().app, owner.user_id);
      let refresh = refreshOf(await c.exchange(app, alice, await c.code(app, alice)));
      for (let i = 1; i < 20; i++) refresh = refreshOf(await c.refresh(app, alice, refresh));
      const code = await c.code(app, bob);
      const appEmpty = ['1', '"login-app";q=20;w=10', '"login-app";r=0;t=1'];
      assertLimited(await c.exchange(app, bob, code), appEmpty);
      assertLimited(await c.refresh(app, alice, refresh), appEmpty);
      refreshOf(await c.exchange(other, bob, await c.code(other, bob)));
      clock.advance(500);
      refreshOf(await c.exchange(app, bob, code));
    });
  },
  { env: { RATE_LIMITS: 'on', RATE_LIMIT_TOKEN_APP_PER_S: '2' } },
);

const LOGIN_REQUEST = { redirect_uri: CB, scope: 'moment', grant_type: 'authorization_code' };

/**
 * Opens the authorize page as `cookie`'s user for `params` (a login by default) and gives what
 * presses it: `action` with the page's fields, `edits` over them as a user could make.
 */
async function authorizePage(t: TestApp, app: Creds, cookie: string, params: Record<string, string> = LOGIN_REQUEST) {
  const page = await openAuthorize(t.app, { app_id: app.app_id, ...params }, cookie);
  assert.equal(page.status, 200, page.body);
  const csrf = String(page.setCookie).split(';')[0] ?? '';
  const fields = hiddenFields(page.body);
  return (action = 'allow', edits: Record<string, string> = {}) => {
    const request: InjectOptions = {
      method: 'POST',
      url: '/oauth/authorize',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${cookie}; ${csrf}` },
      payload: new URLSearchParams({ ...fields, ...edits, action }).toString(),
    };
    return t.app.inject(request);
  };
}

/** Opens the login's authorize page as `cookie`'s user and presses `action`: the raw answer. */
async function press(t: TestApp, app: Creds, cookie: string, action = 'allow') {
  return (await authorizePage(t, app, cookie))(action);
}

const codesOf = async (t: TestApp, userId: string): Promise<number> => {
  const row = await t.services.db.k
    .selectFrom('oauth_codes')
    .where('user_id', '=', userId)
    .select((e) => e.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
};

await describeStoresOnFakeClock(
  'authorize Allow budget',
  (t, clock) => {
    it('one user pressing Allow: 100, then a 429 page that adds no code; Cancel and other users unaffected; refills', async () => {
      const [owner, alice, bob] = (await createUsers(t().app, 3)) as [TestUser, TestUser, TestUser];
      const app = await createApp(t().app, owner.user_id);
      const [aliceCookie, bobCookie] = [
        await createSessionCookie(t().app, alice.user_id),
        await createSessionCookie(t().app, bob.user_id),
      ];
      for (let i = 0; i < 100; i++) assert.equal((await press(t(), app, aliceCookie)).statusCode, 302, `Allow #${i}`);
      const refused = await press(t(), app, aliceCookie);
      assert.equal(refused.statusCode, 429);
      assert.match(String(refused.headers['content-type']), /^text\/html/);
      assert.equal(refused.headers.location, undefined);
      assert.deepEqual(limitHeaders(refused), ['5', '"allow";q=100;w=500', '"allow";r=0;t=5']);
      assert.ok(refused.body.includes('Too many authorizations in a short time. Try again in 5 s.'), refused.body);
      assert.equal(await codesOf(t(), alice.user_id), 100, 'the refused Allow added no code');

      const cancel = await press(t(), app, aliceCookie, 'cancel');
      assert.equal(cancel.statusCode, 302);
      assert.equal(new URL(String(cancel.headers.location)).searchParams.get('error'), 'access_denied');
      assert.equal((await press(t(), app, bobCookie)).statusCode, 302, "another user's Allow");

      clock.advance(4_000);
      assert.equal((await press(t(), app, aliceCookie)).statusCode, 429);
      clock.advance(1_000);
      const allowed = await press(t(), app, aliceCookie);
      assert.equal(allowed.statusCode, 302, allowed.body);
      assert.ok(new URL(String(allowed.headers.location)).searchParams.get('code'), 'a code after the refill');
    });

    it("a payment's Allow refused by its checks (400 page) spends nothing; an accepted one does", async () => {
      const [owner, alice] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
      const app = await createApp(t().app, owner.user_id);
      const cookie = await createSessionCookie(t().app, alice.user_id);
      const pay = await authorizePage(t(), app, cookie, {
        redirect_uri: CB,
        scope: 'payment',
        grant_type: 'onetime_token',
        amount: '1.5',
        payer_user_id: alice.user_id,
        receiver_user_id: owner.user_id,
        pay_type: 'send',
        pay_info: 'tea',
      });
      // The user edited the amount: each Allow is an error page, and none takes from the budget.
      for (let i = 0; i < 101; i++) {
        const refused = await pay('allow', { amount: '-1' });
        assert.equal(refused.statusCode, 400, `refused Allow #${i}`);
        assert.equal(refused.headers.location, undefined);
      }
      for (let i = 0; i < 100; i++) assert.equal((await pay()).statusCode, 302, `accepted Allow #${i}`);
      const limited = await pay();
      assert.equal(limited.statusCode, 429);
      assert.deepEqual(limitHeaders(limited), ['5', '"allow";q=100;w=500', '"allow";r=0;t=5']);
    });
  },
  { env: { RATE_LIMITS: 'on' } },
);

await describeStoresOnFakeClock('login-flow budgets with RATE_LIMITS=off', (t) => {
  const c = tokenClient(t);

  it('301 refreshes of one login and 101 Allows of one user all pass', async () => {
    const [owner, alice] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
    const app = await createApp(t().app, owner.user_id);
    let refresh = refreshOf(await c.exchange(app, alice, await c.code(app, alice)));
    for (let i = 0; i < 301; i++) refresh = refreshOf(await c.refresh(app, alice, refresh));
    const cookie = await createSessionCookie(t().app, alice.user_id);
    for (let i = 0; i < 101; i++) assert.equal((await press(t(), app, cookie)).statusCode, 302, `Allow #${i}`);
  });
});
