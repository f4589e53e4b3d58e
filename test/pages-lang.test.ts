// The pages' language: the developer site and the authorize page (its error pages too) speak
// Simplified Chinese when Accept-Language prefers it, with <html lang> and Vary to match, and English
// otherwise; the authorize page's two buttons are Allow and Cancel in every language (operator-api.md).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { adminHeaders, describeStores } from './helpers/app.js';
import { createBot, createUsers, sessionToken } from './helpers/factories.js';
import { pageClient } from './helpers/pages.js';

const ZH = { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.5' };

await describeStores('pages in English and Simplified Chinese', (t) => {
  const app = () => t().app;

  async function developer() {
    const user = (await createUsers(app(), 1))[0] ?? assert.fail('user');
    return { user, client: pageClient(app(), `op_session=${await sessionToken(app(), user.user_id)}`) };
  }

  it('the developer site speaks Chinese when asked, English by default', async () => {
    const { user, client } = await developer();
    const bot = await createBot(app(), user.user_id);

    const home = await client.get('/developers/', ZH);
    assert.equal(home.status, 200);
    assert.equal(home.headers.vary, 'Accept-Language');
    assert.match(home.body, /^<!doctype html>\s*<html lang="zh-CN">/);
    assert.match(home.body, /<h1>你的应用和机器人<\/h1>/);
    assert.match(home.body, /class="primary">创建机器人<\/button>/);
    assert.match(home.body, /当前登录： <strong>/);

    const page = await client.get(`/developers/bots/${bot.bot_user_id}`, ZH);
    assert.equal(page.status, 200);
    assert.match(page.body, /<html lang="zh-CN">/);
    assert.match(page.body, /<h2 id="receiving">接收更新<\/h2>/);
    assert.match(page.body, /方式： <strong>长轮询<\/strong>/);
    assert.match(page.body, /机器人关注的人/);

    const saved = await client.post(
      `/developers/bots/${bot.bot_user_id}/privacy`,
      { private_messages: 'everyone', group_invites: 'everyone' },
      { headers: ZH },
    );
    assert.equal(saved.status, 303);
    const after = await client.get(String(saved.headers.location), ZH);
    assert.match(after.body, /隐私设置已保存。/);

    const english = await client.get('/developers/');
    assert.equal(english.headers.vary, 'Accept-Language');
    assert.match(english.body, /^<!doctype html>\s*<html lang="en">/);
    assert.match(english.body, /<h1>Your apps and bots<\/h1>/);
  });

  it("the developer site's failure pages speak Chinese too", async () => {
    const anonymous = await app().inject({ method: 'GET', url: '/developers/', headers: ZH });
    assert.equal(anonymous.statusCode, 401);
    assert.match(anonymous.body, /<html lang="zh-CN">/);
    assert.match(anonymous.body, /请在应用内打开开发者网站/);

    const { client } = await developer();
    await client.get('/developers/', ZH);
    const forged = await client.post('/developers/bots', { name: 'Forged' }, { csrf: 'not-the-token', headers: ZH });
    assert.equal(forged.status, 403);
    assert.match(forged.body, /<h1>无法接受此表单<\/h1>/);
    assert.match(forged.body, /<a href="\/developers\/">返回<\/a>/);

    const unknown = await client.get('/developers/bots/1', ZH);
    assert.equal(unknown.status, 404);
    assert.match(unknown.body, /<h1>操作未成功<\/h1>/);

    const signedOut = await app().inject({ method: 'GET', url: '/developers/signed-out', headers: ZH });
    assert.match(signedOut.body, /<h1>你已退出<\/h1>/);
  });

  it('the authorize page speaks Chinese when asked, but its buttons are Allow and Cancel in every language', async () => {
    const [owner] = await createUsers(app(), 1);
    const user = owner ?? assert.fail('user');
    const created = await app().inject({
      method: 'POST',
      url: '/internal/v1/apps',
      headers: adminHeaders,
      payload: { owner_user_id: user.user_id, name: 'Shop', redirect_uris: ['https://client.example/cb'] },
    });
    const appId = created.json<{ app_id: string }>().app_id;
    const query = new URLSearchParams({
      app_id: appId,
      redirect_uri: 'https://client.example/cb',
      scope: 'moment',
      grant_type: 'authorization_code',
    });
    const cookie = `op_session=${await sessionToken(app(), user.user_id)}`;
    const buttons =
      /<button [^>]*value="cancel"[^>]*>Cancel<\/button>\s*<button [^>]*value="allow"[^>]*>Allow<\/button>/;
    for (const headers of [ZH, {}]) {
      const page = await app().inject({
        method: 'GET',
        url: `/oauth/authorize?${query.toString()}`,
        headers: { ...headers, cookie },
      });
      assert.equal(page.statusCode, 200, page.body);
      assert.match(page.body, buttons);
    }
    const zh = await app().inject({
      method: 'GET',
      url: `/oauth/authorize?${query.toString()}`,
      headers: { ...ZH, cookie },
    });
    assert.match(zh.body, /<html lang="zh-CN">/);
    assert.match(zh.body, /授权请求/);
    assert.doesNotMatch(zh.body, /允许<\/button>|取消<\/button>/);
  });

  it("the authorize page's error pages speak Chinese when asked, English by default", async () => {
    const zh = await app().inject({ method: 'GET', url: '/oauth/authorize?scope=moment', headers: ZH });
    assert.equal(zh.statusCode, 400);
    assert.equal(zh.headers.vary, 'Accept-Language');
    assert.match(zh.body, /^<!doctype html>\s*<html lang="zh-CN">/);
    assert.match(zh.body, /<h1 id="title">无法完成此请求<\/h1>/);
    assert.match(zh.body, /缺少参数 app_id。/);
    assert.match(zh.body, /请回到你来自的应用后重试。/);

    const en = await app().inject({ method: 'GET', url: '/oauth/authorize?scope=moment' });
    assert.equal(en.statusCode, 400);
    assert.match(en.body, /^<!doctype html>\s*<html lang="en">/);
    assert.match(en.body, /This request can&#39;t be completed/);
    assert.match(en.body, /app_id is missing\./);
  });
});
