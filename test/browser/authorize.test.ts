// The authorize page in a real browser (Debian's Chromium through playwright-core): what the user
// sees, the buttons, the redirects back to the app, escaping and CSP. Takes no screenshots: those are
// `npm run screenshots` (scripts/screenshots.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { adminHeaders, startTestApp, type TestApp } from '../helpers/app.js';
import {
  browserSkipReason,
  launchBrowser,
  listen,
  startCallbackServer,
  type CallbackServer,
} from '../helpers/browser.js';
import { applyEvents, createApp, createUsers, sessionToken, type Creds, type TestUser } from '../helpers/factories.js';

const HOSTILE_NAME = '<script>alert(1)</script>';

// Runs in the page; the project's TypeScript has no DOM types, so this one global is described here.
declare const getComputedStyle: (element: unknown) => Record<string, string>;
/** Serialized into the page, so it takes the property as an argument instead of closing over it. */
const styleOf = (element: unknown, property: string) => getComputedStyle(element)[property];

interface Opened {
  page: Page;
  context: BrowserContext;
  /** Dialogs (alert, confirm) the page opened: there must be none. */
  dialogs: string[];
  /** Console errors, CSP violations included. */
  errors: string[];
}

describe('authorize page in Chromium', { skip: browserSkipReason() }, () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let callback: CallbackServer;
  let alice: TestUser;
  let shop: TestUser;
  let creds: Creds;
  let hostile: Creds;
  let showcase: Creds;
  const contexts: BrowserContext[] = [];

  const sessionOf = (userId: string): Promise<string> => sessionToken(t.app, userId);
  const newApp = async (name: string, redirectUris: string[]): Promise<Creds> => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/internal/v1/apps',
      headers: adminHeaders,
      payload: { owner_user_id: shop.user_id, name, redirect_uris: redirectUris },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<Creds>();
  };

  /** A phone-sized browser tab, signed in as `userId` unless undefined, on the authorize page. */
  const open = async (params: Record<string, string>, userId: string | undefined): Promise<Opened> => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    contexts.push(context);
    if (userId !== undefined) {
      await context.addCookies([{ name: 'op_session', value: await sessionOf(userId), url: base }]);
    }
    const page = await context.newPage();
    const dialogs: string[] = [];
    const errors: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    const res = await page.goto(`${base}/oauth/authorize?${new URLSearchParams(params).toString()}`);
    assert.equal(res?.status(), 200);
    return { page, context, dialogs, errors };
  };
  const loginParams = (o: Record<string, string> = {}) => ({
    app_id: creds.app_id,
    redirect_uri: `${callback.url}/cb?from=app`,
    scope: 'moment',
    grant_type: 'authorization_code',
    response_type: 'code',
    ...o,
  });
  const paymentParams = (o: Record<string, string> = {}) => ({
    app_id: creds.app_id,
    redirect_uri: `${callback.url}/cb?from=app`,
    scope: 'payment',
    grant_type: 'onetime_token',
    amount: '25.5',
    payer_user_id: alice.user_id,
    receiver_user_id: shop.user_id,
    pay_type: 'send',
    pay_info: 'Order #1042: two flat whites',
    ...o,
  });
  /** Clicks a button and waits until the browser is back at the app's redirect endpoint. */
  const choose = async (o: Opened, button: 'Allow' | 'Cancel'): Promise<URL> => {
    await Promise.all([
      o.page.waitForURL((u) => u.href.startsWith(`${callback.url}/cb`)),
      o.page.getByRole('button', { name: button, exact: true }).click(),
    ]);
    const url = new URL(o.page.url());
    const seen = callback.hits.filter((h) => h.pathname === '/cb').at(-1);
    assert.equal(seen?.href, url.href, 'the app endpoint saw the same URL');
    assert.equal(url.searchParams.get('from'), 'app', 'the registered query is kept');
    return url;
  };
  const clean = (o: Opened) => {
    assert.deepEqual(o.dialogs, []);
    assert.deepEqual(o.errors, []);
  };

  before(async () => {
    t = await startTestApp('sqlite');
    base = await listen(t.app);
    callback = await startCallbackServer();
    browser = await launchBrowser();
    [alice] = (await createUsers(t.app, 1, { user_id: '100001', name: 'Mia Chen' })) as [TestUser];
    [shop] = (await createUsers(t.app, 1, { user_id: '200002', name: 'Corner Café' })) as [TestUser];
    creds = await createApp(t.app, shop.user_id, [`${callback.url}/cb?from=app`]);
    hostile = await newApp(HOSTILE_NAME, [`${callback.url}/cb?from=app`]);
    showcase = await newApp('Moments Club', ['https://moments.example/callback']);
    await applyEvents(t.app, [{ type: 'points.credited', data: { user_id: alice.user_id, amount: '100' } }]);
  });

  after(async () => {
    for (const c of contexts) await c.close();
    await browser.close();
    await callback.close();
    await t.close();
  });

  it('login: shows the app and the scope; Allow returns code, userId, source and state', async () => {
    const o = await open(loginParams({ state: 'st-1' }), alice.user_id);
    assert.equal(await o.page.title(), 'Sign in to test app · Open Platform');
    assert.equal(await o.page.getByRole('heading', { level: 1 }).textContent(), 'test app');
    const lead = await o.page.locator('.lead').textContent();
    assert.equal(
      lead?.replace(/\s+/g, ' ').trim(),
      'test app would like to sign you in and read your profile and moments.',
    );
    assert.match((await o.page.locator('.who').textContent()) ?? '', /Signed in as Mia Chen/);
    // The inline stylesheet passed the CSP (its hash), so the page is styled.
    const allow = o.page.getByRole('button', { name: 'Allow', exact: true });
    assert.equal(await allow.evaluate(styleOf, 'backgroundColor'), 'rgb(31, 79, 209)', 'the stylesheet applies');
    // Keyboard users see where the focus is.
    await o.page.keyboard.press('Tab');
    const focused = o.page.locator(':focus');
    assert.equal(await focused.textContent(), 'Cancel');
    assert.equal(await focused.evaluate(styleOf, 'outlineStyle'), 'solid');

    const url = await choose(o, 'Allow');
    assert.deepEqual([...url.searchParams.keys()], ['from', 'code', 'userId', 'source', 'state']);
    assert.match(url.searchParams.get('code') ?? '', /^[\w-]{43}$/);
    assert.equal(url.searchParams.get('userId'), alice.user_id);
    assert.equal(url.searchParams.get('source'), 'open_platform');
    assert.equal(url.searchParams.get('state'), 'st-1');
    clean(o);
  });

  it('login: Cancel returns error=access_denied and state', async () => {
    const o = await open(loginParams({ state: 'st-2' }), alice.user_id);
    const url = await choose(o, 'Cancel');
    assert.equal(url.search, '?from=app&error=access_denied&state=st-2');
    clean(o);
  });

  it('payment: shows amount, payer, receiver and pay_info; Allow returns code, serial_id, source and state', async () => {
    const o = await open(paymentParams({ state: 'pay-1' }), alice.user_id);
    assert.equal(await o.page.title(), 'Payment for test app · Open Platform');
    const text = ((await o.page.locator('main').innerText()) || '').replace(/\s+/g, ' ');
    assert.match(text, /would like to request a payment from your points\./);
    assert.match(text, /25\.50 points/);
    assert.match(text, /From Mia Chen \(you\) ID 100001/);
    assert.match(text, /To Corner Café ID 200002/);
    assert.match(text, /For Order #1042: two flat whites/);

    const url = await choose(o, 'Allow');
    assert.deepEqual([...url.searchParams.keys()], ['from', 'code', 'serial_id', 'source', 'state']);
    assert.equal(url.searchParams.get('source'), 'open_platform');
    assert.equal(url.searchParams.get('state'), 'pay-1');
    const transfer = await t.app.inject({
      method: 'POST',
      url: `/openapi/payment/transfer?app_id=${creds.app_id}&app_secret=${creds.app_secret}`,
      payload: { access_token: url.searchParams.get('code'), serial_id: url.searchParams.get('serial_id') },
    });
    assert.equal(transfer.json<{ code: string }>().code, '1');
    clean(o);
  });

  it('payment: Cancel returns error=access_denied and state', async () => {
    const o = await open(paymentParams({ state: 'pay-2' }), alice.user_id);
    const url = await choose(o, 'Cancel');
    assert.equal(url.search, '?from=app&error=access_denied&state=pay-2');
    clean(o);
  });

  it('a hostile app name and pay_info are shown as text and run nothing', async () => {
    const info = '<img src=x onerror="alert(2)">';
    const o = await open(paymentParams({ app_id: hostile.app_id, pay_info: info }), alice.user_id);
    assert.equal(await o.page.getByRole('heading', { level: 1 }).textContent(), HOSTILE_NAME);
    assert.ok(
      ((await o.page.textContent('body')) ?? '').includes('<script>'),
      "((await o.page.textContent('body')) ?? '').includes('<script>')",
    );
    assert.equal(await o.page.locator('.note').textContent(), info);
    assert.equal(await o.page.locator('script, img').count(), 0);
    assert.deepEqual(o.dialogs, []);
    clean(o);
  });

  it('without a session the page asks to open it inside the application, with no buttons', async () => {
    const o = await open(loginParams(), undefined);
    assert.equal(await o.page.getByRole('heading', { level: 1 }).textContent(), 'Open this page in the application');
    assert.match((await o.page.textContent('main')) ?? '', /open this link inside the application/);
    assert.equal(await o.page.getByRole('button').count(), 0);
    clean(o);
  });

  it('opens the login and payment pages of an app with a plain name cleanly', async () => {
    const login = await open(
      {
        app_id: showcase.app_id,
        redirect_uri: 'https://moments.example/callback',
        scope: 'moment',
        grant_type: 'authorization_code',
      },
      alice.user_id,
    );
    const payment = await open(
      paymentParams({ app_id: showcase.app_id, redirect_uri: 'https://moments.example/callback' }),
      alice.user_id,
    );
    clean(login);
    clean(payment);
  });
});
