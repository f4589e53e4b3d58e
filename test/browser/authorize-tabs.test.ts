// decisions.md section 7, "the authorize page in several tabs", in Chromium: one signed-in browser
// opens the payment page for 20 orders in 20 tabs at once (one cookie jar, so every load sets the
// CSRF cookie over the others'), then confirms every tab. Each redirect carries its own code and
// serial_id, and each order transfers exactly once. Takes no screenshots.
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

const TABS = 20;

describe('authorize page in 20 tabs in Chromium', { skip: browserSkipReason() }, () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let base: string;
  let callback: CallbackServer;
  let payer: TestUser;
  let shop: TestUser;
  let creds: Creds;

  const balance = async (user: TestUser): Promise<string> => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/internal/v1/users/${user.user_id}/balance`,
      headers: adminHeaders,
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ balance: string }>().balance;
  };
  const transfer = async (code: string, serialId: string): Promise<string> => {
    const qs = new URLSearchParams({ app_id: creds.app_id, app_secret: creds.app_secret }).toString();
    const res = await t.app.inject({
      method: 'POST',
      url: `/openapi/payment/transfer?${qs}`,
      payload: { access_token: code, serial_id: serialId },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ code: string }>().code;
  };
  const paymentUrl = (order: number) =>
    `${base}/oauth/authorize?${new URLSearchParams({
      app_id: creds.app_id,
      redirect_uri: `${callback.url}/cb`,
      scope: 'payment',
      grant_type: 'onetime_token',
      amount: '1.25',
      payer_user_id: payer.user_id,
      receiver_user_id: shop.user_id,
      pay_type: 'send',
      pay_info: `Order ${order}`,
      state: `order-${order}`,
    }).toString()}`;

  before(async () => {
    t = await startTestApp('sqlite');
    base = await listen(t.app);
    callback = await startCallbackServer();
    browser = await launchBrowser();
    [payer, shop] = (await createUsers(t.app, 2)) as [TestUser, TestUser];
    creds = await createApp(t.app, shop.user_id, [`${callback.url}/cb`]);
    await applyEvents(t.app, [{ type: 'points.credited', data: { user_id: payer.user_id, amount: '100' } }]);
    context = await browser.newContext();
    // Twenty tabs share the machine with other suites: a slow machine is not a failure.
    context.setDefaultTimeout(120_000);
    await context.addCookies([{ name: 'op_session', value: await sessionToken(t.app, payer.user_id), url: base }]);
  });

  after(async () => {
    await context.close();
    await browser.close();
    await callback.close();
    await t.close();
  });

  it('every tab confirms its own order; each order transfers exactly once', async () => {
    const orders = Array.from({ length: TABS }, (_, i) => i + 1);
    const pages: Page[] = await Promise.all(orders.map(() => context.newPage()));
    // All loads at once, then all confirmations at once: every tab's form was loaded before
    // any of them is sent, and later loads set the cookie again.
    const loaded = await Promise.all(pages.map((page, i) => page.goto(paymentUrl(orders[i] ?? 0))));
    assert.deepEqual(
      loaded.map((res) => res?.status()),
      orders.map(() => 200),
    );
    const answers = await Promise.all(
      pages.map(async (page) => {
        const [answer] = await Promise.all([
          page.waitForResponse((r) => r.request().method() === 'POST'),
          page.getByRole('button', { name: 'Allow', exact: true }).click(),
        ]);
        return answer.status();
      }),
    );
    assert.deepEqual(
      answers,
      orders.map(() => 302),
      'every form is accepted (a refused one is a 403 page)',
    );
    const returned = await Promise.all(
      pages.map(async (page) => {
        await page.waitForURL((u) => u.href.startsWith(`${callback.url}/cb`));
        return new URL(page.url());
      }),
    );
    assert.deepEqual(
      returned.map((url) => [url.searchParams.get('state'), url.searchParams.get('source')]),
      orders.map((order) => [`order-${order}`, 'open_platform']),
      'every tab came back with its own state',
    );
    const paid = returned.map((url) => ({
      code: url.searchParams.get('code') ?? '',
      serial: url.searchParams.get('serial_id') ?? '',
    }));
    assert.equal(new Set(paid.map((p) => p.serial)).size, TABS, 'one serial per tab');
    assert.equal(new Set(paid.map((p) => p.code)).size, TABS, 'one code per tab');
    for (const p of paid) assert.equal(await transfer(p.code, p.serial), '1', `${p.serial} transfers`);
    for (const p of paid) assert.equal(await transfer(p.code, p.serial), '-2016', `${p.serial} only once`);
    assert.equal(await balance(payer), '75', '20 orders of 1.25 paid once each');
    assert.equal(await balance(shop), '25');
  });
});
