// decisions.md section 7, "the authorize page in several tabs", in Chromium: one signed-in browser
// opens the payment page for 20 orders in 20 tabs at once (one cookie jar, so every load sets the
// CSRF cookie over the others'), then confirms every tab. Each redirect carries its own code and
// serial_id, and each order transfers exactly once. Takes no screenshots.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { adminHeaders } from '../helpers/app.js';
import { paymentParams, paymentScene, transfer } from '../helpers/browser-authorize.js';
import { describeInChromium, signIn } from '../helpers/browser-stores.js';
import type { TestUser } from '../helpers/factories.js';

const TABS = 20;

await describeInChromium('authorize page in 20 tabs in Chromium', (s) => {
  const scene = paymentScene(s);
  let context: BrowserContext;

  const balance = async (user: TestUser): Promise<string> => {
    const res = await s.t.app.inject({
      method: 'GET',
      url: `/internal/v1/users/${user.user_id}/balance`,
      headers: adminHeaders,
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ balance: string }>().balance;
  };
  const paymentUrl = (order: number) =>
    `${s.base}/oauth/authorize?${new URLSearchParams(
      paymentParams(scene(), { amount: '1.25', pay_info: `Order ${order}`, state: `order-${order}` }),
    ).toString()}`;

  before(async () => {
    context = await s.newContext();
    // Twenty tabs share the machine with other suites: a slow machine is not a failure.
    context.setDefaultTimeout(120_000);
    await signIn(s, context, scene().payer.user_id);
  });

  it('every tab confirms its own order; each order transfers exactly once', async () => {
    const { callback, creds, payer, shop } = scene();
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
    for (const p of paid) {
      assert.equal(await transfer(s.t.app, creds, p.code, p.serial), '1', `${p.serial} transfers`);
    }
    for (const p of paid) {
      assert.equal(await transfer(s.t.app, creds, p.code, p.serial), '-2016', `${p.serial} only once`);
    }
    assert.equal(await balance(payer), '75', '20 orders of 1.25 paid once each');
    assert.equal(await balance(shop), '25');
  });
});
