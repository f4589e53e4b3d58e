// The developer site through app.inject(): sign-in and CSRF, exact statuses, credentials shown
// once, resets taking effect at once, the five-bot limit, ownership, escaping and bad input.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeStores } from '../../../test/helpers/app.js';
import { botCall, failed, result } from '../../../test/helpers/delivery.js';
import { createBot, createUsers, sessionToken, type TestUser } from '../../../test/helpers/factories.js';
import type { App } from '../../http/types.js';

interface Page {
  status: number;
  body: string;
  headers: Record<string, unknown>;
}

/** A signed-in browser, reduced to its two cookies and the CSRF token of the last page. */
async function signIn(app: App, user: TestUser) {
  let cookies = `op_session=${await sessionToken(app, user.user_id)}`;
  let csrf = '';
  const remember = (page: Page): Page => {
    const set = page.headers['set-cookie'];
    if (typeof set === 'string' && !cookies.includes(set.split(';')[0] ?? '')) {
      cookies = `${cookies}; ${set.split(';')[0] ?? ''}`;
    }
    csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? csrf;
    return page;
  };
  const asPage = (r: Awaited<ReturnType<App['inject']>>): Page => ({
    status: r.statusCode,
    body: r.body,
    headers: r.headers,
  });
  return {
    get: async (url: string) =>
      remember(asPage(await app.inject({ method: 'GET', url, headers: { cookie: cookies } }))),
    post: async (url: string, form: Record<string, string>, token = csrf) =>
      remember(
        asPage(
          await app.inject({
            method: 'POST',
            url,
            headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
            payload: new URLSearchParams({ csrf: token, ...form }).toString(),
          }),
        ),
      ),
  };
}

const secretOf = (page: Page, label: string): string => {
  const m = new RegExp(`<h3>${label}</h3>\\s*<code class="secret">([^<]+)</code>`).exec(page.body);
  assert.ok(m?.[1] !== undefined, `${label} on the page`);
  return m[1];
};

await describeStores(
  'developer site',
  (t) => {
    const app = () => t().app;
    const user = async () => (await createUsers(app(), 1))[0] ?? assert.fail('user');

    it('without a session every page answers 401 asking to open it in the application', async () => {
      for (const url of ['/developers/', '/developers/bots/1', '/developers/apps/a']) {
        const res = await app().inject({ method: 'GET', url });
        assert.equal(res.statusCode, 401, url);
        assert.match(res.body, /Open the developer site in the application/);
        assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
      }
      const bare = await app().inject({ method: 'GET', url: '/developers' });
      assert.equal(bare.statusCode, 303);
      assert.equal(bare.headers.location, '/developers/');
    });

    it("a URL the router refuses, and an unknown path, get the site's page, not JSON", async () => {
      const b = await signIn(app(), await user());
      const page = async (url: string, status: number, text: RegExp) => {
        const res = await b.get(url);
        assert.equal(res.status, status, url);
        assert.match(String(res.headers['content-type']), /^text\/html/, url);
        assert.match(res.body, /<h1>That didn&#39;t work<\/h1>/, url);
        assert.match(res.body, text, url);
      };
      const malformed = /<p>Url: malformed percent-escape or invalid UTF-8\.<\/p>/;
      await page('/developers/bots/%FF', 400, malformed);
      // The way back from a URL no route took is the start, not the same URL.
      assert.match((await b.get('/developers/bots/%FF')).body, /<a href="\/developers\/">/);
      // Refused by a hook before any route: on an unknown path too.
      await page('/developers/nope?x=%FF', 400, /<p>Querystring: malformed percent-escape or invalid UTF-8\.<\/p>/);
      await page('/developers/apps/%C0%80', 400, malformed);
      await page('/developers/nope', 404, /<p>No such endpoint\.<\/p>/);
      // Ids as long as their schema allows (128 characters) are routed, not "a path segment is too long".
      await page(`/developers/bots/${'1'.repeat(128)}`, 404, /<p>Unknown bot\.<\/p>/);
      await page(`/developers/apps/${encodeURIComponent('\u{1F600}'.repeat(128))}`, 404, /<p>Unknown app\.<\/p>/);
    });

    it('a form without the right CSRF token is refused with 403 and changes nothing', async () => {
      const b = await signIn(app(), await user());
      await b.get('/developers/');
      const refused = await b.post('/developers/bots', { name: 'Forged' }, 'not-the-token');
      assert.equal(refused.status, 403);
      assert.match(refused.body, /This form can&#39;t be accepted/);
      assert.doesNotMatch((await b.get('/developers/')).body, /Forged/);
    });

    it('creates a bot: key and secret shown once, the key works, the bot page never shows the secret', async () => {
      const b = await signIn(app(), await user());
      assert.equal((await b.get('/developers/')).status, 200);
      const created = await b.post('/developers/bots', { name: 'Weather Bot', description: 'Forecasts.' });
      assert.equal(created.status, 200);
      assert.equal(created.headers['cache-control'], 'no-store');
      const key = secretOf(created, 'App Key');
      const secret = secretOf(created, 'App Secret');
      const botId = /bot id (\d+)/.exec(created.body)?.[1];
      assert.ok(botId !== undefined, 'bot id on the page');
      assert.equal((result(await botCall(app(), 'getMe', key)) as { name: string }).name, 'Weather Bot');
      const page = await b.get(`/developers/bots/${botId}`);
      assert.equal(page.status, 200);
      assert.ok(page.body.includes(key), 'the App Key is shown on the bot page');
      assert.ok(!page.body.includes(secret), 'the App Secret is not shown again');
      assert.match(page.body, /Mode: <strong>Long polling<\/strong>/);
      assert.match(page.body, /Created bots cannot be deleted/);
      assert.match((await b.get('/developers/')).body, /Weather Bot<\/a>/);
    });

    it('resetting the App Key stops the old one at once; the secret reset shows a new secret', async () => {
      const owner = await user();
      const bot = await createBot(app(), owner.user_id, 'Leaky');
      const b = await signIn(app(), owner);
      await b.get(`/developers/bots/${bot.bot_user_id}`);
      const reset = await b.post(`/developers/bots/${bot.bot_user_id}/reset-key`, {});
      assert.equal(reset.status, 200);
      const fresh = secretOf(reset, 'App Key');
      failed(await botCall(app(), 'getMe', bot.api_key), 400, 'You X-API-KEY is not available', 'old key');
      result(await botCall(app(), 'getMe', fresh), 'new key');
      const secret = secretOf(await b.post(`/developers/bots/${bot.bot_user_id}/reset-secret`, {}), 'App Secret');
      assert.notEqual(secret, bot.app_secret);
    });

    it('the sixth bot is refused with 409 and the page says why; with five the form is gone', async () => {
      const owner = await user();
      for (let i = 0; i < 5; i++) await createBot(app(), owner.user_id, `bot ${i}`);
      const b = await signIn(app(), owner);
      const home = await b.get('/developers/');
      assert.match(home.body, /Bots \(5 of 5\)/);
      assert.match(home.body, /You own 5 bots, the most an account may have\. Created bots cannot be deleted\./);
      assert.doesNotMatch(home.body, />Create bot</);
      const refused = await b.post('/developers/bots', { name: 'Sixth' });
      assert.equal(refused.status, 409);
      assert.match(refused.body, /An account may own at most 5 bots\./);
    });

    it("another developer's bot and app are 404; forms against them change nothing", async () => {
      const owner = await user();
      const bot = await createBot(app(), owner.user_id, 'Private');
      const b = await signIn(app(), await user());
      const page = await b.get(`/developers/bots/${bot.bot_user_id}`);
      assert.equal(page.status, 404);
      assert.match(page.body, /Unknown bot\./);
      await b.get('/developers/');
      assert.equal((await b.post(`/developers/bots/${bot.bot_user_id}/reset-key`, {})).status, 404);
      assert.equal((await b.post(`/developers/apps/${bot.app_id}/reset-secret`, {})).status, 404);
      result(await botCall(app(), 'getMe', bot.api_key), 'the key still works');
    });

    it('webhook on and off: the mode switches, the Webhook Key is shown once', async () => {
      const owner = await user();
      const bot = await createBot(app(), owner.user_id, 'Hooked');
      const b = await signIn(app(), owner);
      const path = `/developers/bots/${bot.bot_user_id}`;
      await b.get(path);
      const set = await b.post(`${path}/webhook`, { url: 'http://127.0.0.1:9/hook', payload_format: 'flat' });
      assert.equal(set.status, 200, set.body);
      const key = secretOf(set, 'Webhook Key');
      const page = await b.get(path);
      assert.match(
        page.body,
        /Mode: <strong>Webhook<\/strong> at <code>http:\/\/127\.0\.0\.1:9\/hook<\/code> \(flat format\)/,
      );
      assert.ok(!page.body.includes(key), 'the Webhook Key is not shown again');
      const cleared = await b.post(`${path}/webhook/clear`, {});
      assert.equal(cleared.status, 303);
      assert.equal(cleared.headers.location, `${path}?done=cleared`);
      assert.match(
        (await b.get(`${path}?done=cleared`)).body,
        /Webhook cleared: the bot receives updates by long polling again\./,
      );
      assert.deepEqual(result(await botCall(app(), 'getUpdates', bot.api_key)), []);
    });

    it('profile, privacy, permission application and redirect URIs are saved; bad input is a 400 page', async () => {
      const owner = await user();
      const bot = await createBot(app(), owner.user_id, 'Editable');
      const b = await signIn(app(), owner);
      const path = `/developers/bots/${bot.bot_user_id}`;
      await b.get(path);
      const hostile = '<script>alert(1)</script>';
      assert.equal((await b.post(`${path}/profile`, { name: hostile, description: 'Hi & bye' })).status, 303);
      const saved = await b.get(`${path}?done=profile`);
      assert.ok(!saved.body.includes(hostile), 'the name is escaped');
      assert.ok(saved.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'the escaped name is shown');
      assert.match(saved.body, /Profile saved\./);
      const privacy = await b.post(`${path}/privacy`, { private_messages: 'friends', group_invites: 'following' });
      assert.equal(privacy.status, 303);
      assert.match((await b.get(path)).body, /name="private_messages" value="friends" checked/);
      assert.equal((await b.post(`${path}/permissions`, { permission: 'publish_bot' })).status, 303);
      assert.match(
        (await b.get(path)).body,
        /Publish bot<\/td>\s*<td>[^<]+<\/td>\s*<td><span class="pill wait">pending<\/span>/,
      );
      const again = await b.post(`${path}/permissions`, { permission: 'publish_bot' });
      assert.equal(again.status, 409);
      const tooLong = await b.post(`${path}/profile`, { name: 'x'.repeat(65) });
      assert.equal(tooLong.status, 400);
      assert.match(tooLong.body, /Name: at most 64 characters\./);
      const badChoice = await b.post(`${path}/privacy`, { private_messages: 'nobody', group_invites: 'everyone' });
      assert.equal(badChoice.status, 400);
      const nul = await b.post(`${path}/profile`, { name: 'a\u0000b' });
      assert.equal(nul.status, 400);

      await b.get('/developers/');
      const created = await b.post('/developers/apps', {
        name: 'Shop Login',
        redirect_uris: 'https://shop.test/cb\r\n',
      });
      const appId = /app id (app_[\w-]+)/.exec(created.body)?.[1];
      assert.ok(appId !== undefined, created.body);
      const uris = await b.post(`/developers/apps/${appId}/redirect-uris`, {
        redirect_uris: 'https://shop.test/cb\nhttps://shop.test/other',
      });
      assert.equal(uris.status, 303);
      assert.match(
        (await b.get(`/developers/apps/${appId}`)).body,
        /https:\/\/shop\.test\/cb\nhttps:\/\/shop\.test\/other<\/textarea>/,
      );
      const fragment = await b.post(`/developers/apps/${appId}/redirect-uris`, {
        redirect_uris: 'https://shop.test/#x',
      });
      assert.equal(fragment.status, 400);
      assert.match(fragment.body, /Redirect_uris: must not contain a fragment/);
    });
  },
  { env: { WEBHOOK_ALLOW_INSECURE: '1' } },
);
