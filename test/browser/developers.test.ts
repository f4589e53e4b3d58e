// The developer site in a real browser (Debian's Chromium through playwright-core): the main
// journeys of a developer, checked against the API they change. Takes no screenshots: those are
// `npm run screenshots` (scripts/screenshots.ts), so the tests leave the work tree clean.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { adminHeaders } from '../helpers/app.js';
import { axeViolations } from '../helpers/axe.js';
import { describeInChromium, signIn } from '../helpers/browser-stores.js';
import { botCall, failed, result, say, startReceiver } from '../helpers/delivery.js';
import { createUsers, type TestUser } from '../helpers/factories.js';

const BAD_KEY = 'You X-API-KEY is not available';
const WEBHOOK_ACTIVE =
  "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first";

await describeInChromium(
  'developer site in Chromium',
  (s) => {
    let dev: TestUser;
    let fan: TestUser;
    let page: Page;
    /** Console errors and CSP violations: there must be none. */
    const errors: string[] = [];

    const signedInPage = async (userId: string): Promise<Page> => {
      const context = await s.newContext({ viewport: { width: 1280, height: 900 } });
      // A missing element fails fast instead of after playwright's default 30 s.
      context.setDefaultTimeout(10_000);
      await signIn(s, context, userId);
      const p = await context.newPage();
      p.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      p.on('pageerror', (e) => errors.push(e.message));
      return p;
    };
    const click = async (name: string) => {
      await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name, exact: true }).click()]);
    };
    const secret = (label: string) =>
      page
        .locator(`h3:text-is("${label}") + code.secret`)
        .textContent()
        .then((v) => v ?? '');
    const goto = async (path: string) => {
      const res = await page.goto(`${s.base}${path}`);
      assert.equal(res?.status(), 200, path);
    };
    const mainText = async () => (await page.locator('main').innerText()).replace(/\s+/g, ' ');

    /** Creates a bot through the form; answers its id and the credentials shown once. */
    const createBot = async (name: string, description: string) => {
      await goto('/developers/');
      await page.getByLabel('Name', { exact: true }).first().fill(name);
      await page.locator('#bot-description').fill(description);
      await click('Create bot');
      assert.equal(await page.locator('h1').textContent(), 'Your new bot');
      const id = /bot id (\d+)/.exec(await mainText())?.[1] ?? '';
      return { id, key: await secret('App Key'), secret: await secret('App Secret') };
    };

    before(async () => {
      [dev] = (await createUsers(s.t.app, 1, { user_id: '100001', name: 'Mia Chen' })) as [TestUser];
      [fan] = (await createUsers(s.t.app, 1, { user_id: '100002', name: 'Leo Park' })) as [TestUser];
      page = await signedInPage(dev.user_id);
    });

    it('without a session the site asks to be opened in the application (401)', async () => {
      const context = await s.newContext();
      const anonymous = await context.newPage();
      const res = await anonymous.goto(`${s.base}/developers/`);
      assert.equal(res?.status(), 401);
      assert.equal(await anonymous.locator('h1').textContent(), 'Open the developer site in the application');
    });

    it('speaks Simplified Chinese to a browser set to it, with axe still clean', async () => {
      // axe runs as an injected script, which the page's CSP refuses.
      const context = await s.newContext({ locale: 'zh-CN', bypassCSP: true });
      await signIn(s, context, dev.user_id);
      const zh = await context.newPage();
      assert.equal((await zh.goto(`${s.base}/developers/`))?.status(), 200);
      assert.equal(await zh.locator('html').getAttribute('lang'), 'zh-CN');
      assert.equal(await zh.locator('h1').textContent(), '你的应用和机器人');
      assert.deepEqual(await axeViolations(zh), []);
      await context.close();
    });

    it('creates a bot: the secret is shown once, the key works on the API', async () => {
      const bot = await createBot('Weather Bot', 'Forecasts for your group, every morning.');
      assert.match(bot.key, /^ak_/);
      assert.ok(bot.secret.length >= 32, `a secret: ${bot.secret}`);
      assert.equal((result(await botCall(s.t.app, 'getMe', bot.key)) as { name: string }).name, 'Weather Bot');
      await Promise.all([page.waitForEvent('load'), page.getByRole('link', { name: 'Continue' }).click()]);
      assert.equal(new URL(page.url()).pathname, `/developers/bots/${bot.id}`);
      assert.equal(await page.locator('h1').textContent(), 'Weather Bot');
      assert.ok((await page.content()).includes(bot.key), 'the App Key stays visible');
      assert.ok(!(await page.content()).includes(bot.secret), 'the App Secret is not shown again');
      await page.reload();
      assert.ok(!(await page.content()).includes(bot.secret), 'nor after a reload');
      assert.match(await mainText(), /App Secret shown only when created or reset/);
    });

    it('resetting the App Key: the old key fails on the API at once, the new one works', async () => {
      const bot = await createBot('Leaky Bot', 'Its key leaked.');
      await goto(`/developers/bots/${bot.id}`);
      await click('Reset App Key');
      assert.equal(await page.locator('h1').textContent(), 'New App Key');
      const fresh = await secret('App Key');
      assert.notEqual(fresh, bot.key);
      failed(await botCall(s.t.app, 'getMe', bot.key), 400, BAD_KEY, 'the old key');
      result(await botCall(s.t.app, 'getMe', fresh), 'the new key');
      await goto(`/developers/bots/${bot.id}`);
      assert.ok((await page.content()).includes(fresh), 'the bot page shows the new key');
    });

    it('switches the webhook on (with its key) and off again', async () => {
      const bot = await createBot('Hook Bot', 'Receives by webhook.');
      const receiver = await startReceiver();
      try {
        await goto(`/developers/bots/${bot.id}`);
        assert.match((await page.locator('#mode').textContent()) ?? '', /Long polling/);
        await page.locator('#webhook-url').fill(receiver.url);
        await click('Set webhook');
        assert.equal(await page.locator('h1').textContent(), 'Webhook set');
        const key = await secret('Webhook Key');
        assert.ok(key.length >= 32, `a Webhook Key: ${key}`);
        await goto(`/developers/bots/${bot.id}`);
        assert.match((await page.locator('#mode').textContent()) ?? '', /Webhook at .*\/hook \(update format\)/);
        failed(await botCall(s.t.app, 'getUpdates', bot.key), 409, WEBHOOK_ACTIVE, 'polling while the webhook is on');
        assert.equal((result(await botCall(s.t.app, 'getWebhookInfo', bot.key)) as { url: string }).url, receiver.url);

        await click('Clear webhook (back to long polling)');
        assert.match(await mainText(), /Webhook cleared: the bot receives updates by long polling again\./);
        assert.match((await page.locator('#mode').textContent()) ?? '', /Long polling/);
        assert.deepEqual(result(await botCall(s.t.app, 'getUpdates', bot.key)), []);
      } finally {
        await receiver.close();
      }
    });

    it("applies for a permission and sees the operator's approval", async () => {
      const bot = await createBot('Group Helper', 'Answers questions in groups.');
      await goto(`/developers/bots/${bot.id}`);
      await page.getByLabel('Listen to group messages').check();
      await click('Apply');
      assert.match(await mainText(), /Application filed\. It is pending the platform's review\./);
      assert.equal(await page.locator('#perms ~ table .pill').first().textContent(), 'pending');
      const pending = await s.t.app.inject({
        method: 'GET',
        url: `/internal/v1/permission-applications?status=pending&bot_user_id=${bot.id}`,
        headers: adminHeaders,
      });
      const [application] = pending.json<{ applications: { id: string }[] }>().applications;
      assert.ok(application !== undefined, 'the operator sees the application');
      const approved = await s.t.app.inject({
        method: 'POST',
        url: `/internal/v1/permission-applications/${application.id}/approve`,
        headers: adminHeaders,
        payload: { note: 'Welcome aboard' },
      });
      assert.equal(approved.statusCode, 200, approved.body);
      await page.reload();
      assert.equal(await page.locator('#perms ~ table .pill').first().textContent(), 'approved');
      assert.match(await mainText(), /Held: Listen to group messages/);
      assert.match(await mainText(), /Welcome aboard/);
    });

    it('shows a failed webhook delivery and redelivers it', async () => {
      const bot = await createBot('Retry Bot', 'Its server was down for a moment.');
      const receiver = await startReceiver(500);
      try {
        await goto(`/developers/bots/${bot.id}`);
        await page.locator('#webhook-url').fill(receiver.url);
        await click('Set webhook');
        await say(s.t.app, { from: fan.user_id, to: bot.id, text: 'Will it rain tomorrow?' });
        assert.equal(await s.t.services.dispatcher.tick(), 1);
        await goto(`/developers/bots/${bot.id}`);
        const rows = page.locator('#deliveries ~ table tbody tr');
        assert.equal(await rows.count(), 1);
        assert.match((await rows.first().innerText()).replace(/\s+/g, ' '), /HTTP 500/);
        receiver.setFallback(200);
        await click('Redeliver');
        assert.match(await mainText(), /The update is queued for delivery now\./);
        assert.equal(await s.t.services.dispatcher.tick(), 1);
        await page.reload();
        const states = await page.locator('#deliveries ~ table .pill').allTextContents();
        assert.deepEqual(states, ['delivered', 'failed, then delivered']);
        await receiver.close();
      } finally {
        await receiver.close().catch(() => undefined);
      }
    });

    it('saves a profile and privacy settings, creates an app, applies to publish a bot', async () => {
      // Five bots exist by now: the first one is edited.
      const weather = (await s.t.services.developers.overview(dev.user_id)).find((a) => a.name === 'Weather Bot');
      await goto(`/developers/bots/${weather?.bot_user_id ?? ''}`);
      await page.locator('#description').fill('Forecasts for your group, every morning at 7.');
      await click('Save profile');
      assert.match(await mainText(), /Profile saved\./);
      await page.getByLabel('Friends').check();
      await page.getByLabel('People the bot follows').nth(1).check();
      await click('Save privacy settings');
      assert.match(await mainText(), /Privacy settings saved\./);
      assert.equal(await page.locator('input[name=private_messages]:checked').getAttribute('value'), 'friends');
      assert.equal(await page.locator('input[name=group_invites]:checked').getAttribute('value'), 'following');

      await goto('/developers/');
      await page.locator('#app-name').fill('Shop Login');
      await page.locator('#app-uris').fill('https://shop.example/callback\nhttps://shop.example/pay/return');
      await click('Create app');
      assert.equal(await page.locator('h1').textContent(), 'Your new app');
      await Promise.all([page.waitForEvent('load'), page.getByRole('link', { name: 'Continue' }).click()]);
      assert.equal(
        await page.locator('#redirect-uris').inputValue(),
        'https://shop.example/callback\nhttps://shop.example/pay/return',
      );

      const home = await page.goto(`${s.base}/developers/`);
      assert.equal(home?.status(), 200);
      assert.match(await mainText(), /Bots \(5 of 5\)/);
      assert.match(await mainText(), /You own 5 bots, the most an account may have\. Created bots cannot be deleted\./);

      // The bot with a delivery log and an application makes the fullest bot page.
      const retry = (await s.t.services.developers.overview(dev.user_id)).find((a) => a.name === 'Retry Bot');
      await goto(`/developers/bots/${retry?.bot_user_id ?? ''}`);
      await page.getByLabel('Publish bot').check();
      await click('Apply');
      assert.deepEqual(errors, [], 'no console errors or CSP violations');
    });
  },
  { env: { WEBHOOK_ALLOW_INSECURE: '1' } },
);
