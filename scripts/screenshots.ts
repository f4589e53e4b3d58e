// `npm run screenshots`: the pictures in docs/screenshots/ (and the README), taken in Debian's
// Chromium from the app started on a temporary SQLite store loaded with the demo community. Kept
// out of `npm test` so that the tests leave the work tree clean.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { buildApp } from '../src/app.js';
import { boot } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { ensureDemo, type Demo } from '../src/demo/demo.js';
import { ASSISTANT_USER_ID } from '../src/db/migrations/0003_developers.js';
import { newSecretToken } from '../src/lib/ids.js';
import type { Services } from '../src/services.js';
import { CHROMIUM, launchBrowser, listen } from '../test/helpers/browser.js';

const OUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

interface Shooter {
  browser: Browser;
  base: string;
  services: Services;
}

/** A tab, signed in as `userId` unless undefined (the session cookie the application would set). */
async function tab(sh: Shooter, userId: string | undefined, viewport: typeof PHONE): Promise<Page> {
  const context = await sh.browser.newContext({ viewport, deviceScaleFactor: viewport === PHONE ? 2 : 1 });
  context.setDefaultTimeout(15_000);
  if (userId !== undefined) {
    const { cookie } = await sh.services.sessions.create(userId);
    const eq = cookie.indexOf('=');
    await context.addCookies([{ name: cookie.slice(0, eq), value: cookie.slice(eq + 1), url: sh.base }]);
  }
  return context.newPage();
}

async function open(page: Page, url: string): Promise<void> {
  const res = await page.goto(url);
  if (res?.status() !== 200) throw new Error(`${url} answered ${String(res?.status())}`);
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
  process.stdout.write(`docs/screenshots/${name}.png\n`);
}

const submit = (page: Page, button: string) =>
  Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: button, exact: true }).click()]);

async function authorizePages(sh: Shooter, demo: Demo): Promise<void> {
  const common = { app_id: demo.app.app_id, redirect_uri: `${sh.services.config.publicUrl}/demo/callback` };
  const page = await tab(sh, demo.userId, PHONE);
  const login = { ...common, scope: 'moment', grant_type: 'authorization_code', response_type: 'code' };
  await open(page, `${sh.base}/oauth/authorize?${new URLSearchParams(login).toString()}`);
  await shoot(page, 'authorize-login');
  const payment = {
    ...common,
    scope: 'payment',
    grant_type: 'onetime_token',
    amount: '25.5',
    payer_user_id: demo.userId,
    receiver_user_id: demo.developerId,
    pay_type: 'send',
    pay_info: 'Order #1042: two flat whites',
  };
  await open(page, `${sh.base}/oauth/authorize?${new URLSearchParams(payment).toString()}`);
  await shoot(page, 'authorize-payment');
}

async function developerPages(sh: Shooter, demo: Demo): Promise<void> {
  const page = await tab(sh, demo.developerId, DESKTOP);
  await open(page, `${sh.base}/developers/`);
  await page.getByLabel('Name', { exact: true }).first().fill('Weather Bot');
  await page.locator('#bot-description').fill('Forecasts for your group, every morning at 7.');
  await submit(page, 'Create bot');
  await shoot(page, 'developers-new-bot');
  await open(page, `${sh.base}/developers/`);
  await shoot(page, 'developers-home');
  await open(page, `${sh.base}/developers/apps/${demo.app.app_id}`);
  await shoot(page, 'developers-app');
  // Applying to publish leaves an application for the console's picture.
  await open(page, `${sh.base}/developers/bots/${demo.bot.bot_user_id}`);
  await page.getByLabel('Publish bot').check();
  await submit(page, 'Apply');
  await shoot(page, 'developers-bot');
}

async function playground(sh: Shooter, demo: Demo): Promise<void> {
  const page = await tab(sh, demo.userId, DESKTOP);
  await open(page, `${sh.base}/playground/?bot=${ASSISTANT_USER_ID}`);
  const items = page.locator('#log > li');
  const before = await items.count();
  await page.getByLabel('Message').fill('/newbot');
  await page.getByLabel('Message').press('Enter');
  // The assistant answers in-process; the live script adds its reply after the message sent.
  await items.nth(before + 1).waitFor();
  await shoot(page, 'playground');
}

async function consolePage(sh: Shooter, adminToken: string): Promise<void> {
  const page = await tab(sh, undefined, DESKTOP);
  await open(page, `${sh.base}/console/`);
  await page.getByLabel('Operator token').fill(adminToken);
  await page.getByLabel('Your name (recorded in the audit trail)').fill('Olga');
  await submit(page, 'Sign in');
  await shoot(page, 'console');
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'op-screenshots-'));
  const adminToken = newSecretToken();
  const config = loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'platform.db')}`, ADMIN_TOKEN: adminToken });
  const booted = await boot(config);
  const app = await buildApp(booted.services);
  let browser: Browser | undefined;
  try {
    const demo = await ensureDemo(booted.services);
    const base = await listen(app);
    browser = await launchBrowser();
    mkdirSync(OUT, { recursive: true });
    const sh = { browser, base, services: booted.services };
    await authorizePages(sh, demo);
    await developerPages(sh, demo);
    await playground(sh, demo);
    await consolePage(sh, adminToken);
  } finally {
    await browser?.close();
    await app.close();
    await booted.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`screenshots failed (Chromium expected at ${CHROMIUM}): ${String(e)}\n`);
  process.exit(1);
});
