// decisions.md section 7, "the authorize page in several tabs", through app.inject(): pages loaded
// at once (neither load carrying the other's cookie, as with tabs opened together) can each submit
// their own form with whichever CSRF cookie the browser kept; a form of another session, of the
// other site, or without a token is refused. The developer site works the same way.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeStores } from './helpers/app.js';
import { applyEvents, createApp, createBot, createUsers, sessionToken, type Creds } from './helpers/factories.js';

const CB = 'https://client.example/cb';
const REFUSED = /This form can&#39;t be accepted/;

interface Loaded {
  /** The form's fields, the CSRF token included. */
  fields: Record<string, string>;
  /** The op_csrf cookie the page set, as a Cookie header pair. */
  csrfCookie: string;
}

const unescape = (s: string): string =>
  s.replace(
    /&(amp|quot|#39|lt|gt);/g,
    (e) => ({ '&amp;': '&', '&quot;': '"', '&#39;': "'", '&lt;': '<', '&gt;': '>' })[e] ?? e,
  );

await describeStores('CSRF with pages open in several tabs', (t) => {
  let creds: Creds;
  let payer: string;
  let receiver: string;
  const session = async (userId: string) => `op_session=${await sessionToken(t().app, userId)}`;

  /** Loads a page with only the session cookie; returns its form and the cookie it set. */
  const load = async (url: string, cookie: string): Promise<Loaded> => {
    const res = await t().app.inject({ method: 'GET', url, headers: { cookie } });
    assert.equal(res.statusCode, 200, res.body);
    const set = res.headers['set-cookie'];
    assert.equal(typeof set, 'string', 'one Set-Cookie header');
    const fields = Object.fromEntries(
      [...res.body.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)" \/>/g)].map((m) => [
        unescape(m[1] ?? ''),
        unescape(m[2] ?? ''),
      ]),
    );
    assert.ok(fields.csrf !== undefined, 'the form carries a CSRF token');
    return { fields, csrfCookie: String(set).split(';')[0] ?? '' };
  };
  const post = (url: string, fields: Record<string, string>, cookie: string) =>
    t().app.inject({
      method: 'POST',
      url,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });
  const paymentPage = (payInfo: string) =>
    `/oauth/authorize?${new URLSearchParams({
      app_id: creds.app_id,
      redirect_uri: CB,
      scope: 'payment',
      grant_type: 'onetime_token',
      amount: '1',
      payer_user_id: payer,
      receiver_user_id: receiver,
      pay_type: 'send',
      pay_info: payInfo,
    }).toString()}`;
  const loginPage = () =>
    `/oauth/authorize?${new URLSearchParams({
      app_id: creds.app_id,
      redirect_uri: CB,
      scope: 'moment',
      grant_type: 'authorization_code',
    }).toString()}`;
  /** Submits an authorize form; expects the redirect of an allowed payment and returns its serial. */
  const allowed = async (form: Loaded, cookie: string): Promise<string> => {
    const res = await post('/oauth/authorize', { ...form.fields, action: 'allow' }, cookie);
    assert.equal(res.statusCode, 302, res.body);
    const back = new URL(String(res.headers.location));
    assert.deepEqual(
      [...back.searchParams.keys()],
      ['code', 'serial_id', 'source', 'amount', 'pay_type', 'payer_user_id', 'receiver_user_id'],
    );
    return back.searchParams.get('serial_id') ?? '';
  };
  const refused = async (url: string, fields: Record<string, string>, cookie: string, what: string) => {
    const res = await post(url, fields, cookie);
    assert.equal(res.statusCode, 403, what);
    assert.match(res.body, REFUSED, what);
    assert.equal(res.headers.location, undefined, what);
  };

  it('sets up a payer, a receiver and an app', async () => {
    const [p, r] = await createUsers(t().app, 2);
    assert.ok(p !== undefined && r !== undefined, 'two users');
    [payer, receiver] = [p.user_id, r.user_id];
    creds = await createApp(t().app, receiver, [CB]);
    await applyEvents(t().app, [{ type: 'points.credited', data: { user_id: payer, amount: '10' } }]);
  });

  it('two payment pages loaded at once: each form is accepted with the cookie the browser kept', async () => {
    const signedIn = await session(payer);
    const first = await load(paymentPage('first tab'), signedIn);
    const second = await load(paymentPage('second tab'), signedIn);
    // The browser keeps the cookie of the last load; the first tab's form goes with it.
    const kept = `${signedIn}; ${second.csrfCookie}`;
    const serials = [await allowed(first, kept), await allowed(second, kept)];
    assert.notEqual(serials[0], serials[1], 'one order per tab');
    // And with the first load's cookie, had the browser kept that one.
    const third = await load(paymentPage('third tab'), signedIn);
    assert.ok((await allowed(third, `${signedIn}; ${first.csrfCookie}`)) !== '', 'a third order');
  });

  it("another session's form, another site's token or no token is refused", async () => {
    const signedIn = await session(payer);
    const mine = await load(paymentPage('mine'), signedIn);
    const cookie = `${signedIn}; ${mine.csrfCookie}`;
    const allow: Record<string, string> = { ...mine.fields, action: 'allow' };
    // The same user signed in again is another session: its token does not fit this one.
    const otherSession = await load(paymentPage('other session'), await session(payer));
    await refused('/oauth/authorize', { ...allow, csrf: otherSession.fields.csrf ?? '' }, cookie, 'other session');
    const someoneElse = await session(receiver);
    const theirs = await load(loginPage(), someoneElse);
    await refused('/oauth/authorize', { ...allow, csrf: theirs.fields.csrf ?? '' }, cookie, "another user's token");
    await refused('/oauth/authorize', allow, `${someoneElse}; ${theirs.csrfCookie}`, 'my form in their session');
    const site = await load('/developers/', signedIn);
    await refused('/oauth/authorize', { ...allow, csrf: site.fields.csrf ?? '' }, cookie, "the developer site's token");
    const { csrf: _token, ...noToken } = allow;
    await refused('/oauth/authorize', noToken, cookie, 'no token');
    await refused('/oauth/authorize', allow, signedIn, 'no cookie');
    assert.ok((await allowed(mine, cookie)) !== '', 'the form itself is still accepted');
  });

  it('the developer site: two pages loaded at once each submit their form', async () => {
    const bot = await createBot(t().app, payer, 'Tabbed');
    const signedIn = await session(payer);
    const path = `/developers/bots/${bot.bot_user_id}`;
    const first = await load(path, signedIn);
    const second = await load(path, signedIn);
    const kept = `${signedIn}; ${second.csrfCookie}`;
    for (const [form, name] of [
      [first, 'From the first tab'],
      [second, 'From the second tab'],
    ] as const) {
      const res = await post(`${path}/profile`, { csrf: form.fields.csrf ?? '', name }, kept);
      assert.equal(res.statusCode, 303, res.body);
      assert.equal(res.headers.location, `${path}?done=profile`);
    }
    const other = await load(path, await session(payer));
    await refused(`${path}/profile`, { csrf: other.fields.csrf ?? '', name: 'Forged' }, kept, 'other session');
    await refused(`${path}/profile`, { name: 'Forged' }, kept, 'no token');
  });
});
