// The playground and the operator console in Chromium: a developer creates a bot on the developer
// site, writes to it in the playground (Enter sends), a minimal poller (getUpdates, sendMessage with
// an inline keyboard) replies, the reply appears live with its keyboard, and a press reaches the bot
// as a callback query; the operator signs in to the console and approves the bot's application,
// which takes effect at once. No CSP violations or script errors; axe-clean at phone width.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN_TOKEN, adminHeaders } from '../helpers/app.js';
import { axeViolations } from '../helpers/axe.js';
import { describeInChromium } from '../helpers/browser-stores.js';
import { botCall, result } from '../helpers/delivery.js';
import { createUsers, sessionToken, type TestUser } from '../helpers/factories.js';

interface Update {
  update_id: number;
  message?: { text: string; from: { user_id: string } };
  callback_query?: { data: string; from: { user_id: string } };
}

await describeInChromium('playground and console in Chromium', (s) => {
  let dev: TestUser;
  const errors: string[] = [];

  const newPage = async (
    width: number,
    cookies: Parameters<BrowserContext['addCookies']>[0] = [],
    bypassCSP = false,
  ): Promise<Page> => {
    const context = await s.newContext({ viewport: { width, height: 800 }, bypassCSP });
    context.setDefaultTimeout(10_000);
    if (cookies.length > 0) await context.addCookies(cookies);
    const page = await context.newPage();
    page.on('console', (m) => {
      // The browser's own favicon request is not the page's.
      if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) {
        errors.push(`${m.text()} ${m.location().url}`);
      }
    });
    page.on('pageerror', (e) => errors.push(e.message));
    return page;
  };

  /**
   * axe's violations on what `page` shows, read in a second phone-width page that lets axe's script
   * in (the first keeps the CSP, so its own script's errors would show).
   */
  const axeOf = async (page: Page): Promise<string[]> => {
    const cookies = await page.context().cookies();
    const twin = await newPage(390, cookies, true);
    await twin.goto(page.url());
    const found = await axeViolations(twin);
    await twin.context().close();
    return found;
  };

  /** The poller's one step: the Updates waiting, confirmed by the next call's offset. */
  let offset = 0;
  const poll = async (key: string, until: (u: Update) => boolean): Promise<Update> => {
    for (;;) {
      const got = result(await botCall(s.t.app, 'getUpdates', key, { offset, timeout: 5 }), 'getUpdates') as Update[];
      for (const u of got) offset = Math.max(offset, u.update_id + 1);
      const hit = got.find(until);
      if (hit !== undefined) return hit;
    }
  };

  before(async () => {
    [dev] = (await createUsers(s.t.app, 1, { name: 'Mia Chen' })) as [TestUser];
  });

  it('writes to a new bot, sees its reply live with buttons, and presses one', async () => {
    const page = await newPage(390, [
      { name: 'op_session', value: await sessionToken(s.t.app, dev.user_id), url: s.base },
    ]);
    await page.goto(`${s.base}/developers/`);
    await page.locator('#bot-name').fill('Echo Bot');
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Create bot' }).click()]);
    const botId = /bot id (\d+)/.exec(await page.locator('main').innerText())?.[1] ?? assert.fail('bot id');
    const key = (await page.locator('h3:text-is("App Key") + code.secret').textContent()) ?? '';

    await page.goto(`${s.base}/playground/?bot=${botId}`);
    assert.equal(await page.locator('html').getAttribute('lang'), 'en');
    // Live: from here on the conversation changes without the page being loaded again.
    let loads = 0;
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) loads += 1;
    });
    await page.getByLabel('Message').fill('hello bot');
    await page.getByLabel('Message').press('Enter');
    const got = await poll(key, (u) => u.message !== undefined);
    assert.equal(got.message?.text, 'hello bot');
    assert.equal(got.message.from.user_id, dev.user_id);
    await page.locator('.msg.mine', { hasText: 'hello bot' }).waitFor();

    result(
      await botCall(s.t.app, 'sendMessage', key, {
        chat_id: dev.user_id,
        text: 'Pick one',
        reply_markup: {
          inline_keyboard: [
            [
              { text: 'Yes', callback_data: 'yes' },
              { text: 'No', callback_data: 'no' },
            ],
          ],
        },
      }),
      'sendMessage',
    );
    const reply = page.locator('.msg.bot', { hasText: 'Pick one' });
    const yes = reply.getByRole('button', { name: 'Yes', exact: true });
    await yes.waitFor();
    assert.equal(await reply.getByRole('button', { name: 'No', exact: true }).count(), 1, 'the whole keyboard');
    assert.equal(loads, 0, 'the message went and the reply came without a reload');
    assert.deepEqual(await axeOf(page), []);
    await yes.click();
    const pressed = await poll(key, (u) => u.callback_query !== undefined);
    assert.equal(pressed.callback_query?.data, 'yes');
    assert.equal(pressed.callback_query.from.user_id, dev.user_id);
    assert.deepEqual(errors, []);
  });

  it('the operator approves an application in the console and the permission changes at once', async () => {
    const bot = await s.t.services.apps.createBot({ owner_user_id: dev.user_id, name: 'Needs Perms' });
    const filed = await s.t.app.inject({
      method: 'POST',
      url: '/internal/v1/permission-applications',
      headers: adminHeaders,
      payload: { bot_user_id: bot.bot_user_id, permission: 'listen_group_messages' },
    });
    assert.equal(filed.statusCode, 201);
    const page = await newPage(390);
    await page.goto(`${s.base}/console/`);
    assert.equal(new URL(page.url()).pathname, '/console/sign-in');
    assert.deepEqual(await axeOf(page), []);
    await page.getByLabel('Operator token').fill(ADMIN_TOKEN);
    await page.getByLabel('Your name (recorded in the audit trail)').fill('Olga');
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
    assert.ok((await page.locator('main').innerText()).includes('Needs Perms'), 'application listed');
    assert.deepEqual(await axeOf(page), []);
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Approve' }).click()]);
    assert.ok((await page.locator('main').innerText()).includes('Decision saved.'), 'decided');
    const view = await s.t.services.developers.bot(dev.user_id, bot.bot_user_id);
    assert.deepEqual(view.permissions, ['listen_group_messages']);
    await page.goto(`${s.base}/console/audit`);
    assert.ok((await page.locator('main').innerText()).includes('application.approve'), 'audited');
    assert.deepEqual(await axeOf(page), []);
    assert.deepEqual(errors, []);
  });
});
