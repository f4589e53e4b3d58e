// The authorize page in a real browser (Debian's Chromium through playwright-core): what the user
// sees, the buttons, the redirects back to the app, escaping and CSP. Takes no screenshots: those are
// `npm run screenshots` (scripts/screenshots.ts).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { adminHeaders } from '../helpers/app.js';
import { paymentParams as scenePayment, paymentScene, transfer } from '../helpers/browser-authorize.js';
import { describeInChromium, signIn } from '../helpers/browser-stores.js';
import type { Creds, TestUser } from '../helpers/factories.js';

const HOSTILE_NAME = '<script>alert(1)</script>';

// Runs in the page; the project's TypeScript has no DOM types, so this one global is described here.
declare const getComputedStyle: (element: unknown) => Record<string, string>;
/** Serialized into the page, so it takes the property as an argument instead of closing over it. */
const styleOf = (element: unknown, property: string) => getComputedStyle(element)[property];

interface Opened {
  page: Page;
  /** Dialogs (alert, confirm) the page opened: there must be none. */
  dialogs: string[];
  /** Console errors, CSP violations included. */
  errors: string[];
}

await describeInChromium('authorize page in Chromium', (s) => {
  const scene = paymentScene(s, {
    payer: { user_id: '100001', name: 'Mia Chen' },
    shop: { user_id: '200002', name: 'Corner Café' },
    query: '?from=app',
  });
  let alice: TestUser;
  let hostile: Creds;
  let showcase: Creds;

  const newApp = async (name: string, redirectUris: string[]): Promise<Creds> => {
    const res = await s.t.app.inject({
      method: 'POST',
      url: '/internal/v1/apps',
      headers: adminHeaders,
      payload: { owner_user_id: scene().shop.user_id, name, redirect_uris: redirectUris },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<Creds>();
  };

  /** A phone-sized browser tab, signed in as `userId` unless undefined, on the authorize page. */
  const open = async (params: Record<string, string>, userId: string | undefined): Promise<Opened> => {
    const context = await s.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    if (userId !== undefined) await signIn(s, context, userId);
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
    const res = await page.goto(`${s.base}/oauth/authorize?${new URLSearchParams(params).toString()}`);
    assert.equal(res?.status(), 200);
    return { page, dialogs, errors };
  };
  const loginParams = (o: Record<string, string> = {}) => ({
    app_id: scene().creds.app_id,
    redirect_uri: scene().redirectUri,
    scope: 'moment',
    grant_type: 'authorization_code',
    response_type: 'code',
    ...o,
  });
  const paymentParams = (o: Record<string, string> = {}) =>
    scenePayment(scene(), { amount: '25.5', pay_info: 'Order #1042: two flat whites', ...o });
  /** Clicks a button and waits until the browser is back at the app's redirect endpoint. */
  const choose = async (o: Opened, button: 'Allow' | 'Cancel'): Promise<URL> => {
    const { callback } = scene();
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
  /** Opens the page as Alice and presses Cancel: the app hears access_denied and its state. */
  const cancels = async (params: Record<string, string>) => {
    const o = await open(params, alice.user_id);
    const url = await choose(o, 'Cancel');
    assert.equal(url.search, `?from=app&error=access_denied&state=${params.state ?? ''}`);
    clean(o);
  };

  before(async () => {
    alice = scene().payer;
    hostile = await newApp(HOSTILE_NAME, [scene().redirectUri]);
    showcase = await newApp('Moments Club', ['https://moments.example/callback']);
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

  it('login: Cancel returns error=access_denied and state', () => cancels(loginParams({ state: 'st-2' })));

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
    assert.deepEqual(
      [...url.searchParams].filter(([k]) => !['code', 'serial_id'].includes(k)),
      [
        ['from', 'app'],
        ['source', 'open_platform'],
        ['amount', '25.5'],
        ['pay_type', 'send'],
        ['payer_user_id', '100001'],
        ['receiver_user_id', '200002'],
        ['state', 'pay-1'],
      ],
    );
    assert.equal(url.searchParams.get('source'), 'open_platform');
    assert.equal(url.searchParams.get('state'), 'pay-1');
    const code = url.searchParams.get('code') ?? '';
    assert.equal(await transfer(s.t.app, scene().creds, code, url.searchParams.get('serial_id') ?? ''), '1');
    clean(o);
  });

  it('payment: Cancel returns error=access_denied and state', () => cancels(paymentParams({ state: 'pay-2' })));

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
