// GET and POST /oauth/authorize (seed-api.md "Authorization login" and "Authorized payment",
// decisions.md section 5, operator-api.md "Sessions"), through app.inject().
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adminHeaders, describeStores, FakeClock } from '../../../test/helpers/app.js';
import { applyEvents, createApp, createUsers, type Creds, type TestUser } from '../../../test/helpers/factories.js';
import { escapeHtml, html } from '../../http/pages/html.js';
import { pageHeaders } from './page.js';
import { pointsText, withParams } from './routes.js';

const clock = new FakeClock();
const CB = 'https://client.example/cb';
const CB_QUERY = 'https://client.example/cb2?from=app&x=a%20b';
const HOSTILE_NAME = '<script>alert(1)</script>';
const HOSTILE_INFO = `<img src=x onerror="alert('x')"> & "quotes"`;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescape = (s: string): string => s.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] ?? e);
/** What a reader sees: the body's text without tags, entities decoded, spaces collapsed. */
const visibleText = (page: string): string =>
  unescape(
    (/<body>([\s\S]*)<\/body>/.exec(page)?.[1] ?? '')
      .replace(/<\/?strong\b[^>]*>/g, '')
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );
const hiddenFields = (page: string): Record<string, string> =>
  Object.fromEntries(
    [...page.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)" \/>/g)].map((m) => [
      unescape(m[1] ?? ''),
      unescape(m[2] ?? ''),
    ]),
  );

describe('authorize page helpers', () => {
  it('html escapes every interpolation and keeps markup built with html', () => {
    assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    const inner = html`<b>${'<i>'}</b>`;
    assert.equal(
      html`<p>${inner}${['<', html`<br />`]}${false}${undefined}${3}</p>`.text,
      '<p><b>&lt;i&gt;</b>&lt;<br />3</p>',
    );
  });

  it('withParams appends to the query as it is, keeps a fragment last and encodes values', () => {
    assert.equal(withParams('https://a.example/cb', { code: 'c', state: undefined }), 'https://a.example/cb?code=c');
    assert.equal(withParams('https://a.example/cb?x=a%20b+c', { code: 'c' }), 'https://a.example/cb?x=a%20b+c&code=c');
    assert.equal(withParams('https://a.example/cb?', { a: '1' }), 'https://a.example/cb?a=1');
    assert.equal(withParams('https://a.example/cb?x=1&', { a: '1' }), 'https://a.example/cb?x=1&a=1');
    assert.equal(withParams('https://a.example/cb#frag', { a: '1' }), 'https://a.example/cb?a=1#frag');
    assert.equal(
      withParams('https://a.example/cb', { state: 'a b&c=d/é' }),
      'https://a.example/cb?state=a%20b%26c%3Dd%2F%C3%A9',
    );
    assert.equal(withParams('https://a.example', { a: '1' }), 'https://a.example/?a=1');
  });

  it('shows points with two decimals or none', () => {
    assert.deepEqual([2550, 1200, 5, 1, 100_000_012].map(pointsText), ['25.50', '12', '0.05', '0.01', '1000000.12']);
  });

  it('lists only a plain origin of the redirect URI in form-action', () => {
    const csp = (uri: string) => pageHeaders(uri)['content-security-policy'];
    assert.match(csp('http://127.0.0.1:8123/cb?x=1') ?? '', /form-action 'self' http:\/\/127\.0\.0\.1:8123;/);
    assert.match(csp('https://a;b.example/cb') ?? '', /form-action 'self' https:;/);
    assert.match(pageHeaders()['content-security-policy'] ?? '', /form-action 'self';/);
  });
});

await describeStores(
  'authorize page (GET and POST /oauth/authorize)',
  (t) => {
    let alice: TestUser;
    let bob: TestUser;
    let carol: TestUser;
    let creds: Creds;
    let hostile: Creds;
    let aliceCookie: string;
    let bobCookie: string;

    const session = async (userId: string): Promise<string> => {
      const res = await t().app.inject({
        method: 'POST',
        url: '/internal/v1/sessions',
        headers: adminHeaders,
        payload: { user_id: userId },
      });
      assert.equal(res.statusCode, 200);
      return res.json<{ cookie: string }>().cookie;
    };
    const answer = (res: { statusCode: number; headers: Answer['headers']; body: string }): Answer => ({
      status: res.statusCode,
      headers: res.headers,
      body: res.body,
    });
    const get = async (params: Record<string, string>, cookie?: string): Promise<Answer> =>
      answer(
        await t().app.inject({
          method: 'GET',
          url: `/oauth/authorize?${new URLSearchParams(params).toString()}`,
          ...(cookie !== undefined ? { headers: { cookie } } : {}),
        }),
      );
    const post = async (fields: Record<string, string>, cookie?: string): Promise<Answer> =>
      answer(
        await t().app.inject({
          method: 'POST',
          url: '/oauth/authorize',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            ...(cookie !== undefined ? { cookie } : {}),
          },
          payload: new URLSearchParams(fields).toString(),
        }),
      );
    /** The op_csrf cookie a page set, as a Cookie header pair. */
    const csrfCookieOf = (r: Answer): string => {
      const set = r.headers['set-cookie'];
      assert.equal(typeof set, 'string', 'one Set-Cookie header');
      return String(set).split(';')[0] ?? '';
    };
    /** Opens the page as `cookie`'s user and submits its form with `action`. */
    const decide = async (params: Record<string, string>, action: string, cookie = aliceCookie) => {
      const page = await get(params, cookie);
      assert.equal(page.status, 200, page.body);
      return post({ ...hiddenFields(page.body), action }, `${cookie}; ${csrfCookieOf(page)}`);
    };
    const login = (o: Record<string, string> = {}) => ({
      app_id: creds.app_id,
      redirect_uri: CB,
      scope: 'moment',
      grant_type: 'authorization_code',
      response_type: 'code',
      ...o,
    });
    const payment = (o: Record<string, string> = {}) => ({
      app_id: creds.app_id,
      redirect_uri: CB,
      scope: 'payment',
      grant_type: 'onetime_token',
      amount: '12.5',
      payer_user_id: alice.user_id,
      receiver_user_id: bob.user_id,
      pay_type: 'send',
      pay_info: 'Two coffees',
      ...o,
    });
    const location = (r: Answer): URL => {
      assert.equal(r.status, 302, r.body);
      return new URL(String(r.headers.location));
    };
    /** An error page: exact status, HTML, no redirect, and the problem named in its text. */
    const errorPage = (r: Answer, status: number, problem: RegExp): void => {
      assert.equal(r.status, status, r.body);
      assert.equal(r.headers.location, undefined);
      assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(r.headers['cache-control'], 'no-store');
      assert.doesNotMatch(r.body, /<form|<button/);
      assert.match(visibleText(r.body), problem);
    };
    const CANT = /This request can't be completed/;

    it('sets up users, apps and sessions', async () => {
      [alice, bob, carol] = (await createUsers(t().app, 3)) as [TestUser, TestUser, TestUser];
      creds = await createApp(t().app, bob.user_id, [CB, CB_QUERY]);
      const res = await t().app.inject({
        method: 'POST',
        url: '/internal/v1/apps',
        headers: adminHeaders,
        payload: { owner_user_id: bob.user_id, name: HOSTILE_NAME, redirect_uris: [CB] },
      });
      assert.equal(res.statusCode, 201);
      hostile = res.json<Creds>();
      aliceCookie = await session(alice.user_id);
      bobCookie = await session(bob.user_id);
      await applyEvents(t().app, [{ type: 'points.credited', data: { user_id: alice.user_id, amount: '100' } }]);
    });

    it('login page: app name, scope in plain words, Allow and Cancel posting the parameters back', async () => {
      const r = await get(login({ state: 's1' }), aliceCookie);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
      const text = visibleText(r.body);
      assert.match(text, /test app would like to sign you in and read your profile and moments\./);
      assert.match(text, new RegExp(`Signed in as ${alice.name}`));
      assert.match(text, /you return to client\.example/);
      assert.match(r.body, /^<!doctype html>\s*<html lang="en">/);
      assert.match(r.body, /<title>Sign in to test app · Open Platform<\/title>/);
      assert.match(r.body, /<meta name="viewport" content="width=device-width, initial-scale=1" \/>/);
      assert.match(r.body, /<form method="post" action="\/oauth\/authorize"/);
      assert.match(r.body, /<button type="submit" name="action" value="cancel" class="secondary">Cancel<\/button>/);
      assert.match(r.body, /<button type="submit" name="action" value="allow" class="primary">Allow<\/button>/);
      assert.doesNotMatch(r.body, /<script/i);
      const fields = hiddenFields(r.body);
      assert.match(fields.csrf ?? '', /^[\w-]{43}$/);
      assert.deepEqual({ ...fields, csrf: undefined }, { ...login({ state: 's1' }), csrf: undefined });
    });

    it('speaks Simplified Chinese when Accept-Language prefers it, with <html lang> and Vary to match', async () => {
      const zh = async (cookie?: string) =>
        t().app.inject({
          method: 'GET',
          url: `/oauth/authorize?${new URLSearchParams(login()).toString()}`,
          headers: { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.5', ...(cookie !== undefined ? { cookie } : {}) },
        });
      const r = await zh(aliceCookie);
      assert.equal(r.statusCode, 200);
      assert.equal(r.headers.vary, 'Accept-Language');
      assert.match(r.body, /^<!doctype html>\s*<html lang="zh-CN">/);
      assert.match(r.body, /<title>登录 test app · Open Platform<\/title>/);
      assert.match(visibleText(r.body), /test app 请求 登录并读取你的资料和动态。/);
      // operator-api.md: the two buttons are labelled Allow and Cancel, whatever the page's language.
      assert.match(r.body, /class="secondary">Cancel<\/button>/);
      assert.match(r.body, /class="primary">Allow<\/button>/);
      const anonymous = await zh();
      assert.match(anonymous.body, /<html lang="zh-CN">/);
      assert.match(visibleText(anonymous.body), /请在应用内打开此页面/);
      const english = await get(login(), aliceCookie);
      assert.equal(english.headers.vary, 'Accept-Language');
    });

    it('sends the security headers and a SameSite=Strict, HttpOnly CSRF cookie', async () => {
      const r = await get(login(), aliceCookie);
      assert.equal(r.headers['x-frame-options'], 'DENY');
      assert.equal(r.headers['referrer-policy'], 'no-referrer');
      assert.equal(r.headers['cache-control'], 'no-store');
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
      const csp = String(r.headers['content-security-policy']);
      assert.match(
        csp,
        /^default-src 'none'; style-src 'sha256-[\w+/]+=*'; form-action 'self' https:\/\/client\.example;/,
      );
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /script-src|unsafe/);
      assert.match(String(r.headers['set-cookie']), /^op_csrf=[\w-]{43}; Path=\/oauth; HttpOnly; SameSite=Strict$/);
    });

    it('keeps an existing CSRF key, so a form open in another tab stays valid', async () => {
      const first = await get(login(), aliceCookie);
      const cookie = `${aliceCookie}; ${csrfCookieOf(first)}`;
      const second = await get(login(), cookie);
      assert.equal(csrfCookieOf(second), csrfCookieOf(first));
      assert.equal(hiddenFields(second.body).csrf, hiddenFields(first.body).csrf);
      const r = await post({ ...hiddenFields(first.body), action: 'cancel' }, cookie);
      assert.equal(r.status, 302);
    });

    it('Allow on a login redirects with code, userId, source and state; the code yields tokens once', async () => {
      const r = await decide(login({ state: 's1' }), 'allow');
      const url = location(r);
      const code = url.searchParams.get('code') ?? '';
      assert.equal(
        r.headers.location,
        `${CB}?code=${encodeURIComponent(code)}&userId=${encodeURIComponent(alice.user_id)}&source=open_platform&state=s1`,
      );
      assert.equal(r.headers['cache-control'], 'no-store');
      const exchange = async () =>
        (
          await t().app.inject({
            method: 'GET',
            url: `/openapi/oauth2/access_token?${new URLSearchParams({
              grant_type: 'authorization_code',
              code,
              app_id: creds.app_id,
              app_secret: creds.app_secret,
              user_id: alice.user_id,
            }).toString()}`,
          })
        ).json<{ code: number }>().code;
      assert.equal(await exchange(), 1);
      assert.equal(await exchange(), -2011);
    });

    it('Allow without state adds no state; scope payment logs in too', async () => {
      const r = await decide(login({ scope: 'payment' }), 'allow');
      const url = location(r);
      assert.deepEqual([...url.searchParams.keys()], ['code', 'userId', 'source']);
      const page = await get(login({ scope: 'payment' }), aliceCookie);
      assert.match(visibleText(page.body), /would like to sign you in and request payments from your points\./);
    });

    it('Cancel redirects with error=access_denied and state, and issues nothing', async () => {
      const r = await decide(login({ state: 's2' }), 'cancel');
      assert.equal(r.headers.location, `${CB}?error=access_denied&state=s2`);
      assert.equal((await decide(login(), 'cancel')).headers.location, `${CB}?error=access_denied`);
    });

    it('appends to a redirect URI that has a query, keeping its query as registered', async () => {
      const allowed = await decide(login({ redirect_uri: CB_QUERY, state: 'a b&c=d/é' }), 'allow');
      const url = location(allowed);
      assert.ok(
        String(allowed.headers.location).startsWith(`${CB_QUERY}&code=`),
        'String(allowed.headers.location).startsWith(`${CB_QUERY}&code=`)',
      );
      assert.equal(url.searchParams.get('from'), 'app');
      assert.equal(url.searchParams.get('state'), 'a b&c=d/é');
      assert.equal(url.searchParams.get('userId'), alice.user_id);
      const cancelled = await decide(login({ redirect_uri: CB_QUERY, state: 's3' }), 'cancel');
      assert.equal(cancelled.headers.location, `${CB_QUERY}&error=access_denied&state=s3`);
    });

    it('a payment request edited before Allow: the redirect says what the user confirmed, not what the app asked', async () => {
      // The app asked for 12.5 from Alice; the address was edited to 0.10 (the page shows what it holds).
      const page = await get(payment({ amount: '0.10' }), aliceCookie);
      assert.match(visibleText(page.body), /You pay 0\.10 points/);
      const r = await post({ ...hiddenFields(page.body), action: 'allow' }, `${aliceCookie}; ${csrfCookieOf(page)}`);
      const url = location(r);
      assert.deepEqual(
        [...url.searchParams].filter(([k]) => !['code', 'serial_id'].includes(k)),
        [
          ['source', 'open_platform'],
          ['amount', '0.1'],
          ['pay_type', 'send'],
          ['payer_user_id', alice.user_id],
          ['receiver_user_id', bob.user_id],
        ],
      );
    });

    it('payment page shows amount, payer, receiver and pay_info; Allow gives a token that transfers once', async () => {
      const page = await get(payment({ state: 'p1' }), aliceCookie);
      assert.equal(page.status, 200);
      const text = visibleText(page.body);
      assert.match(text, /test app would like to request a payment from your points\./);
      assert.match(text, /You pay 12\.50 points/);
      assert.match(text, new RegExp(`From ${alice.name} \\(you\\) ID ${alice.user_id}`));
      assert.match(text, new RegExp(`To ${bob.name} ID ${bob.user_id}`));
      assert.match(text, /For Two coffees/);
      assert.match(page.body, /<title>Payment for test app · Open Platform<\/title>/);

      const r = await post({ ...hiddenFields(page.body), action: 'allow' }, `${aliceCookie}; ${csrfCookieOf(page)}`);
      const url = location(r);
      const code = url.searchParams.get('code') ?? '';
      const serial = url.searchParams.get('serial_id') ?? '';
      assert.match(serial, /^pay_/);
      const confirmed = `amount=12.5&pay_type=send&payer_user_id=${alice.user_id}&receiver_user_id=${bob.user_id}`;
      assert.equal(
        r.headers.location,
        `${CB}?code=${encodeURIComponent(code)}&serial_id=${encodeURIComponent(serial)}&source=open_platform&${confirmed}&state=p1`,
      );
      const transfer = async () =>
        (
          await t().app.inject({
            method: 'POST',
            url: `/openapi/payment/transfer?app_id=${creds.app_id}&app_secret=${creds.app_secret}`,
            payload: { access_token: code, serial_id: serial },
          })
        ).json<{ code: string }>();
      assert.deepEqual(await transfer(), {
        code: '1',
        msg: 'success',
        source: 'open_platform',
        amount: '12.5',
        pay_type: 'send',
        payer_user_id: alice.user_id,
        receiver_user_id: bob.user_id,
      });
      assert.equal((await transfer()).code, '-2016');
      const balance = await t().app.inject({
        method: 'GET',
        url: `/internal/v1/users/${alice.user_id}/balance`,
        headers: adminHeaders,
      });
      assert.equal(balance.json<{ balance: string }>().balance, '87.5');
    });

    it('payment Cancel redirects with error=access_denied and state', async () => {
      const r = await decide(payment({ state: 'p2' }), 'cancel');
      assert.equal(r.headers.location, `${CB}?error=access_denied&state=p2`);
    });

    it('a receive payment reads as money coming to the user', async () => {
      const params = payment({ pay_type: 'receive', payer_user_id: bob.user_id, receiver_user_id: alice.user_id });
      const text = visibleText((await get(params, aliceCookie)).body);
      assert.match(text, /would like to send you a payment in points\./);
      assert.match(
        text,
        new RegExp(`You receive 12\\.50 points From ${bob.name} ID ${bob.user_id} To ${alice.name} \\(you\\)`),
      );
    });

    it('shows a hostile app name and pay_info as text, never as markup', async () => {
      const r = await get(payment({ app_id: hostile.app_id, pay_info: HOSTILE_INFO }), aliceCookie);
      assert.equal(r.status, 200);
      assert.doesNotMatch(r.body, /<script|<img/i);
      assert.match(r.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
      const text = visibleText(r.body);
      assert.ok(text.includes(`${HOSTILE_NAME} would like to request a payment`), text);
      assert.ok(text.includes(`For ${HOSTILE_INFO}`), text);
      assert.equal(hiddenFields(r.body).pay_info, HOSTILE_INFO);
      const noSession = await get(login({ app_id: hostile.app_id }));
      assert.doesNotMatch(noSession.body, /<script/i);
      assert.ok(
        visibleText(noSession.body).includes(HOSTILE_NAME),
        'visibleText(noSession.body).includes(HOSTILE_NAME)',
      );
    });

    it('an unknown app or an unregistered redirect URI is an error page that never redirects', async () => {
      const unknown = /The app is unknown, or redirect_uri is not an address registered for it/;
      errorPage(await get(login({ app_id: 'app_nope' }), aliceCookie), 400, unknown);
      for (const uri of [`${CB}/`, 'https://CLIENT.example/cb', `${CB}?x=1`, 'https://evil.example/cb']) {
        errorPage(await get(login({ redirect_uri: uri }), aliceCookie), 400, unknown);
        errorPage(await get(login({ redirect_uri: uri })), 400, unknown);
      }
      errorPage(await get(login({ redirect_uri: CB_QUERY.replace('%20', '+') }), aliceCookie), 400, unknown);
      errorPage(await get({ redirect_uri: CB, scope: 'moment' }, aliceCookie), 400, /app_id is missing/);
      errorPage(await get({ app_id: creds.app_id, scope: 'moment' }, aliceCookie), 400, /redirect_uri is missing/);
      const twice = await t().app.inject({
        method: 'GET',
        url: `/oauth/authorize?${new URLSearchParams(login()).toString()}&app_id=${hostile.app_id}`,
        headers: { cookie: aliceCookie },
      });
      errorPage(answer(twice), 400, /app_id is given more than once/);
    });

    it('client_id stands for app_id (RFC 6749 section 4.1.1), posted back as it was spelled', async () => {
      const { app_id: _appId, ...standard } = login({ client_id: creds.app_id, state: 's3' });
      const page = await get(standard, aliceCookie);
      assert.equal(page.status, 200, page.body);
      assert.match(visibleText(page.body), /test app would like to sign you in/);
      const fields = hiddenFields(page.body);
      assert.equal(fields.client_id, creds.app_id);
      assert.equal(fields.app_id, undefined);
      const r = await decide(standard, 'allow');
      const code = location(r).searchParams.get('code') ?? '';
      assert.equal(
        r.headers.location,
        `${CB}?code=${encodeURIComponent(code)}&userId=${encodeURIComponent(alice.user_id)}&source=open_platform&state=s3`,
      );
      const exchanged = await t().app.inject({
        method: 'POST',
        url: '/openapi/oauth2/access_token',
        payload: {
          grant_type: 'authorization_code',
          code,
          app_id: creds.app_id,
          app_secret: creds.app_secret,
          user_id: alice.user_id,
        },
      });
      assert.equal(exchanged.json<{ code: number }>().code, 1, exchanged.body);
      const spellings = (fields: Record<string, string>) => ({ app_id: fields.app_id, client_id: fields.client_id });
      // Both spellings alike, or one of them empty (not given): the same page, both posted back.
      for (const params of [
        login({ client_id: creds.app_id }),
        login({ client_id: '' }),
        { ...standard, app_id: '' },
      ]) {
        const alike = await get(params, aliceCookie);
        assert.equal(alike.status, 200, alike.body);
        assert.deepEqual(spellings(hiddenFields(alike.body)), spellings(params));
      }
      assert.equal(
        (await decide(login({ client_id: creds.app_id }), 'cancel')).headers.location,
        `${CB}?error=access_denied`,
      );
    });

    it('client_id that differs from app_id is an error page, on the page and in its form', async () => {
      const differ = /client_id and app_id differ: give one of them, or both alike\./;
      errorPage(await get(login({ client_id: hostile.app_id }), aliceCookie), 400, differ);
      errorPage(await get(login({ client_id: 'app_nope' })), 400, differ);
      const page = await get(login(), aliceCookie);
      const cookie = `${aliceCookie}; ${csrfCookieOf(page)}`;
      errorPage(
        await post({ ...hiddenFields(page.body), client_id: hostile.app_id, action: 'allow' }, cookie),
        400,
        differ,
      );
      const twice = await t().app.inject({
        method: 'GET',
        url: `/oauth/authorize?${new URLSearchParams(login({ client_id: creds.app_id })).toString()}&client_id=${creds.app_id}`,
        headers: { cookie: aliceCookie },
      });
      errorPage(answer(twice), 400, /client_id is given more than once/);
      // client_id spells the app only: grant_type stays required (the seed marks it so).
      const { app_id: _appId, grant_type: _grant, ...noGrant } = login({ client_id: creds.app_id });
      errorPage(await get(noGrant, aliceCookie), 400, /grant_type must be authorization_code or onetime_token/);
      const zh = await t().app.inject({
        method: 'GET',
        url: `/oauth/authorize?${new URLSearchParams(login({ client_id: hostile.app_id })).toString()}`,
        headers: { cookie: aliceCookie, 'accept-language': 'zh-CN' },
      });
      errorPage(answer(zh), 400, /client_id 与 app_id 不一致/);
    });

    it('a bad scope, grant_type or response_type is an error page naming the problem', async () => {
      const cases: [Record<string, string>, RegExp][] = [
        [login({ scope: 'everything' }), /scope must be moment or payment/],
        [login({ scope: '' }), /scope must be moment or payment/],
        [login({ grant_type: 'password' }), /grant_type must be authorization_code or onetime_token/],
        [payment({ scope: 'moment' }), /grant_type onetime_token needs scope payment/],
        [login({ response_type: 'token' }), /response_type must be code/],
      ];
      for (const [params, problem] of cases) {
        errorPage(await get(params, aliceCookie), 400, problem);
        errorPage(await get(params), 400, problem);
      }
      const { scope: _scope, ...noScope } = login();
      errorPage(await get(noScope, aliceCookie), 400, /scope must be moment or payment/);
      errorPage(await get(login({ state: 'a\u0000b' }), aliceCookie), 400, /U\+0000/);
    });

    it('a lone surrogate posted in JSON is an error page, and no code or payment is issued', async () => {
      const rows = async (table: 'oauth_codes' | 'payment_orders') =>
        Number(
          (
            await t()
              .services.db.k.selectFrom(table)
              .select((e) => e.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const codes = async () => [await rows('oauth_codes'), await rows('payment_orders')];
      const before = await codes();
      for (const [params, action] of [
        [login({ state: 's' }), 'allow'],
        [login({ state: 's' }), 'cancel'],
        [payment(), 'allow'],
      ] as const) {
        const page = await get(params, aliceCookie);
        assert.equal(page.status, 200, page.body);
        const r = answer(
          await t().app.inject({
            method: 'POST',
            url: '/oauth/authorize',
            headers: { 'content-type': 'application/json', cookie: `${aliceCookie}; ${csrfCookieOf(page)}` },
            payload: `${JSON.stringify({ ...hiddenFields(page.body), action }).slice(0, -1)},"state":"x\\udc00"}`,
          }),
        );
        errorPage(r, 400, /lone surrogate/);
      }
      assert.deepEqual(await codes(), before);
    });

    it('bad payment parameters are an error page naming the problem', async () => {
      const { pay_type: _t, pay_info: _i, ...partial } = payment();
      errorPage(await get(partial, aliceCookie), 400, /A payment needs pay_type, pay_info\./);
      const cases: [Record<string, string>, RegExp][] = [
        [payment({ amount: '1.234' }), /amount: greater than 0, at most two decimals/],
        [payment({ amount: '0' }), /amount: greater than 0/],
        [payment({ amount: 'ten' }), /amount: greater than 0/],
        [payment({ pay_type: 'steal' }), /pay_type: send or receive/],
        [payment({ payer_user_id: carol.user_id }), /payer_user_id: must be you/],
        [payment({ pay_type: 'receive' }), /receiver_user_id: must be you/],
        [payment({ receiver_user_id: carol.user_id }), /receiver_user_id: must be the developer's user/],
        [payment({ receiver_user_id: 'nobody' }), /receiver_user_id: must be the developer's user/],
        [payment({ receiver_user_id: alice.user_id }), /payer and receiver are the same user/],
        [payment({ pay_info: 'x'.repeat(1025) }), /pay_info: at most 1024 characters/],
      ];
      for (const [params, problem] of cases) {
        errorPage(
          await get(params, aliceCookie),
          400,
          new RegExp(`The payment request is invalid \\(.*${problem.source}`),
        );
      }
    });

    it('without a live session the page asks to open it in the application, with no buttons', async () => {
      for (const cookie of [undefined, 'op_session=not-a-session', 'other=1', 'op_session=']) {
        const r = await get(payment(), cookie);
        assert.equal(r.status, 200);
        assert.equal(r.headers['set-cookie'], undefined);
        assert.equal(r.headers['x-frame-options'], 'DENY');
        assert.doesNotMatch(r.body, /<form|<button|<input/);
        assert.match(visibleText(r.body), /Open this page in the application/);
        assert.match(visibleText(r.body), /open this link inside the application/);
        assert.match(visibleText(r.body), /test app/);
      }
    });

    it('POST without a session, or with a bad CSRF token, is a 403 page that never redirects', async () => {
      const page = await get(login({ state: 's' }), aliceCookie);
      const fields: Record<string, string> = { ...hiddenFields(page.body), action: 'allow' };
      const csrf = csrfCookieOf(page);
      const forbidden = (r: Answer, problem: RegExp) => {
        errorPage(r, 403, problem);
      };
      const signedOut = /You are not signed in/;
      const refused = /This form can't be accepted/;
      forbidden(await post(fields), signedOut);
      forbidden(await post(fields, csrf), signedOut);
      forbidden(await post(fields, `op_session=forged; ${csrf}`), signedOut);
      forbidden(await post(fields, aliceCookie), refused);
      forbidden(await post({ ...fields, csrf: '' }, `${aliceCookie}; ${csrf}`), refused);
      forbidden(await post({ ...fields, csrf: 'x'.repeat(43) }, `${aliceCookie}; ${csrf}`), refused);
      const { csrf: _c, ...noToken } = fields;
      forbidden(await post(noToken, `${aliceCookie}; ${csrf}`), refused);
      // The token is bound to the session: Bob's session with Alice's form and key fails.
      forbidden(await post(fields, `${bobCookie}; ${csrf}`), refused);
      // A planted key does not help without the session it was bound to.
      forbidden(await post(fields, `${aliceCookie}; op_csrf=${'A'.repeat(43)}`), refused);
      forbidden(await post({ ...fields, action: 'cancel' }, aliceCookie), refused);
      assert.equal((await post(fields, `${aliceCookie}; ${csrf}`)).status, 302);
    });

    it('POST checks the request again: tampered parameters are an error page, not a redirect', async () => {
      const page = await get(payment(), aliceCookie);
      const fields = hiddenFields(page.body);
      const cookie = `${aliceCookie}; ${csrfCookieOf(page)}`;
      errorPage(await post({ ...fields, redirect_uri: 'https://evil.example/cb', action: 'allow' }, cookie), 400, CANT);
      errorPage(
        await post({ ...fields, redirect_uri: 'https://evil.example/cb', action: 'cancel' }, cookie),
        400,
        /redirect_uri is not an address registered/,
      );
      errorPage(await post({ ...fields, amount: '-1', action: 'allow' }, cookie), 400, /amount/);
      errorPage(
        await post({ ...fields, receiver_user_id: carol.user_id, action: 'allow' }, cookie),
        400,
        /must be the developer's user/,
      );
      errorPage(await post({ ...fields, payer_user_id: carol.user_id, action: 'allow' }, cookie), 400, /must be you/);
      errorPage(await post({ ...fields, action: 'maybe' }, cookie), 400, /action must be allow or cancel/);
      errorPage(await post(fields, cookie), 400, /action must be allow or cancel/);
      const malformed = await t().app.inject({
        method: 'POST',
        url: '/oauth/authorize',
        headers: { 'content-type': 'application/json', cookie },
        payload: '{"oops"',
      });
      errorPage(answer(malformed), 400, /malformed JSON/);
    });

    it('a session ends after its lifetime (runs last: it moves the clock)', async () => {
      const cookie = await session(carol.user_id);
      assert.match(visibleText((await get(login(), cookie)).body), /Signed in as/);
      clock.advance(7 * 24 * 3600 * 1000 + 1);
      assert.match(visibleText((await get(login(), cookie)).body), /Open this page in the application/);
    });
  },
  { clock },
);
