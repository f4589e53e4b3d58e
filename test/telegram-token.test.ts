// The bot's Telegram token (`<bot id>:<App Key>`, telegram-api.md "Addressing") where the App Key
// is shown: the operator's bot creation answer, the developer site's bot page and the assistant's
// /token; each one works on /telegram/bot<token>/getMe, and a key reset changes it.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { App } from '../src/http/types.js';
import { adminHeaders, describeStores } from './helpers/app.js';
import { say } from './helpers/delivery.js';
import { createBot, createUsers, sessionToken } from './helpers/factories.js';

const ASSISTANT = '1000000000000000000';

/** getMe on the Telegram surface: the bot's id, or the error code. */
async function getMe(app: App, token: string): Promise<number> {
  const r = await app.inject({ method: 'GET', url: `/telegram/bot${token}/getMe` });
  const body = r.json<{ ok: boolean; error_code?: number; result?: { id: number } }>();
  assert.equal(r.statusCode, body.ok ? 200 : body.error_code, r.body);
  return body.result?.id ?? -(body.error_code ?? 0);
}

const tokenIn = (text: string, label: string): string => {
  const m = new RegExp(`${label}(?:: )?(\\d+:[^\\s<]+)`, 'm').exec(text);
  assert.ok(m?.[1] !== undefined, `"${label}" in ${text}`);
  return m[1];
};

await describeStores('the Telegram token', (t) => {
  const app = () => t().app;

  it("is in the operator's bot creation answer and works on /telegram", async () => {
    const [owner] = await createUsers(app(), 1);
    assert.ok(owner !== undefined, 'an owner');
    const bot = await createBot(app(), owner.user_id, 'Operator made');
    const [id = '', key] = bot.telegram_token.split(':');
    assert.equal(key, bot.api_key);
    assert.equal(await getMe(app(), bot.telegram_token), Number(id));
  });

  it('is on the developer site\'s bot page; "Reset App Key" changes it', async () => {
    const [owner] = await createUsers(app(), 1);
    assert.ok(owner !== undefined, 'an owner');
    let cookie = `op_session=${await sessionToken(app(), owner.user_id)}`;
    const page = async (url: string) => {
      const r = await app().inject({ method: 'GET', url, headers: { cookie } });
      assert.equal(r.statusCode, 200, url);
      // The CSRF token is bound to a cookie the first page sets.
      const set = r.headers['set-cookie'];
      if (typeof set === 'string') cookie = `${cookie}; ${set.split(';')[0] ?? ''}`;
      return r.body;
    };
    const csrf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? assert.fail('a CSRF token');
    const post = async (url: string, form: Record<string, string>, from: string) => {
      const r = await app().inject({
        method: 'POST',
        url,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ csrf: csrf(from), ...form }).toString(),
      });
      assert.equal(r.statusCode, 200, r.body);
      return r.body;
    };
    const created = await post('/developers/bots', { name: 'Site made' }, await page('/developers/'));
    const botId = /bot id (\w+)\)/.exec(created)?.[1] ?? assert.fail(`a bot id in ${created}`);
    const shown = tokenIn(created, '<h3>Telegram token</h3>\\s*<code class="secret">');
    const botPath = `/developers/bots/${botId}`;
    const before = tokenIn(await page(botPath), 'Telegram token</dt>\\s*<dd><code>');
    assert.equal(before, shown);
    assert.ok((await getMe(app(), before)) > 0, 'the shown token works');
    await post(`${botPath}/reset-key`, {}, await page(botPath));
    const after = tokenIn(await page(botPath), 'Telegram token</dt>\\s*<dd><code>');
    assert.notEqual(after, before);
    assert.equal(await getMe(app(), before), -401, 'the old token stopped working');
    assert.ok((await getMe(app(), after)) > 0, 'the new token works');
  });

  it("is in the assistant's /token reply; /revoke answers the new one", async () => {
    const [user] = await createUsers(app(), 1);
    assert.ok(user !== undefined, 'a user');
    const send = async (text: string): Promise<string> => {
      await say(app(), { from: user.user_id, to: ASSISTANT, text });
      const r = await app().inject({ method: 'GET', url: '/internal/v1/messages?limit=1000', headers: adminHeaders });
      const mine = r
        .json<{ messages: { to_user_id?: string; content: string }[] }>()
        .messages.filter((m) => m.to_user_id === user.user_id);
      return mine.at(-1)?.content ?? assert.fail('a reply');
    };
    await send('/newbot');
    await send('Chatty');
    const made = tokenIn(await send('/skip'), 'Telegram token');
    const shown = tokenIn(await send('/token'), 'Telegram token of Chatty');
    assert.equal(shown, made);
    assert.ok((await getMe(app(), shown)) > 0, 'the token works');
    const fresh = tokenIn(await send('/revoke'), 'New Telegram token of Chatty');
    assert.notEqual(fresh, shown);
    assert.equal(await getMe(app(), shown), -401, 'the old token stopped working');
    assert.ok((await getMe(app(), fresh)) > 0, 'the new token works');
  });
});
