// Developer site (issue 18): sign-out ends the session and clears its cookie; the bot page's "last
// error" stops being red once a webhook delivery got through after it. A bot's app id is no app on
// the site: its app page and app actions are unknown, so a bot never gets redirect URIs.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeStores } from './helpers/app.js';
import { openAuthorize } from './helpers/authorize.js';
import { createApp, createBot, createUsers, sessionToken, type TestUser } from './helpers/factories.js';
import { pageClient } from './helpers/pages.js';

await describeStores('developer site: sign-out and a resolved last error', (t) => {
  let dev: TestUser;

  const get = (url: string, cookie: string) => t().app.inject({ method: 'GET', url, headers: { cookie } });
  const csrfOf = (res: { headers: Record<string, unknown>; body: string }) => ({
    cookie: String(res.headers['set-cookie']).split(';')[0] ?? '',
    token: /name="csrf" value="([^"]+)"/.exec(res.body)?.[1] ?? '',
  });

  it('sets up a developer', async () => {
    [dev] = (await createUsers(t().app, 1)) as [TestUser];
  });

  it('Sign out (POST with CSRF) ends the session, clears the cookie and shows a signed-out page', async () => {
    const token = await sessionToken(t().app, dev.user_id);
    const session = `op_session=${token}`;
    const home = await get('/developers/', session);
    assert.equal(home.statusCode, 200);
    assert.match(home.body, /<form method="post" action="\/developers\/sign-out" class="out">/);
    const csrf = csrfOf(home);
    const signOut = (fields: Record<string, string>) =>
      t().app.inject({
        method: 'POST',
        url: '/developers/sign-out',
        headers: { cookie: `${session}; ${csrf.cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(fields).toString(),
      });

    const forged = await signOut({ csrf: 'not-the-token' });
    assert.equal(forged.statusCode, 403);
    assert.equal(await t().services.sessions.userOf(token), dev.user_id, 'a forged form signs nobody out');

    const res = await signOut({ csrf: csrf.token });
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, '/developers/signed-out');
    const cookies = [res.headers['set-cookie']].flat().map(String);
    assert.ok(
      cookies.includes('op_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0'),
      `the session cookie is cleared: ${cookies.join(' | ')}`,
    );
    assert.equal(await t().services.sessions.userOf(token), undefined);
    assert.equal((await get('/developers/', session)).statusCode, 401, 'the old cookie signs nobody in');

    const out = await t().app.inject({ method: 'GET', url: '/developers/signed-out' });
    assert.equal(out.statusCode, 200);
    assert.match(out.body, /<h1>You are signed out<\/h1>/);
    assert.doesNotMatch(out.body, /Signed in as/);
  });

  it('the last error is red until a later delivery gets through, then neutral with that time', async () => {
    const session = `op_session=${await sessionToken(t().app, dev.user_id)}`;
    const bot = await createBot(t().app, dev.user_id);
    const k = t().services.db.k;
    const errorAt = Date.UTC(2026, 10, 22, 10, 0, 0);
    // What the dispatcher records: the bot's last error, and every attempt in the delivery log.
    await k
      .updateTable('bots')
      .set({ webhook_url: 'https://bot.example/hook', last_error_at: errorAt, last_error_message: 'HTTP 500' })
      .where('bot_user_id', '=', bot.bot_user_id)
      .execute();
    const attempt = (at: number, error: string | null) =>
      k
        .insertInto('webhook_deliveries')
        .values({
          bot_user_id: bot.bot_user_id,
          update_id: 1,
          url: 'https://bot.example/hook',
          attempt: 1,
          status_code: error === null ? 200 : 500,
          error,
          duration_ms: 5,
          created_at: at,
          payload: null,
        })
        .execute();
    await attempt(errorAt - 60_000, null);
    await attempt(errorAt, 'HTTP 500');
    const page = () => get(`/developers/bots/${bot.bot_user_id}`, session);

    const red = await page();
    assert.equal(red.statusCode, 200, red.body);
    assert.match(red.body, /<p class="note bad">Last error \(2026-11-22 10:00:00 UTC\): HTTP 500<\/p>/);

    await attempt(errorAt + 90_000, null);
    const resolved = await page();
    assert.doesNotMatch(resolved.body, /class="note bad"/);
    assert.match(
      resolved.body.replace(/\s+/g, ' '),
      /<p class="note" role="status"> Resolved: delivered at 2026-11-22 10:01:30 UTC, after the last error \(2026-11-22 10:00:00 UTC: HTTP 500\)\. <\/p>/,
    );
  });

  it("a bot's app id is no app: its app page and app actions are unknown, and it gets no redirect URIs", async () => {
    const bot = await createBot(t().app, dev.user_id, 'Not a client');
    const shop = await createApp(t().app, dev.user_id, []);
    const cookie = `op_session=${await sessionToken(t().app, dev.user_id)}`;
    const client = pageClient(t().app, cookie);
    assert.equal((await client.get(`/developers/apps/${shop.app_id}`)).status, 200, 'an app page');
    const page = await client.get(`/developers/apps/${bot.app_id}`);
    assert.equal(page.status, 404);
    assert.match(page.body, /unknown app/i);
    const uri = 'https://bot-owner.example/cb';
    const uris = await client.post(`/developers/apps/${bot.app_id}/redirect-uris`, { redirect_uris: uri });
    assert.equal(uris.status, 404);
    for (const kind of ['key', 'secret']) {
      assert.equal((await client.post(`/developers/apps/${bot.app_id}/reset-${kind}`, {})).status, 404, kind);
    }
    assert.equal(
      (await client.post(`/developers/bots/${bot.bot_user_id}/reset-key`, {})).status,
      200,
      'through its bot',
    );
    // So the bot cannot be a login client: its app id has no redirect URI to send a user to.
    const login = {
      app_id: bot.app_id,
      redirect_uri: uri,
      scope: 'moment',
      response_type: 'code',
      grant_type: 'authorization_code',
    };
    assert.equal((await openAuthorize(t().app, login, cookie)).status, 400);
    // Nor does one given redirect URIs before the site refused them: the authorize page checks the kind.
    await t().services.db.k.insertInto('app_redirect_uris').values({ app_id: bot.app_id, uri }).execute();
    assert.equal((await openAuthorize(t().app, login, cookie)).status, 400, 'a URI the site gave earlier');
  });
});
