// Guesses of the operator token on the console are limited (audit finding): ten wrong tokens from
// one address (an IPv6 client's /64), on the sign-in form or as the console's bearer token, lock
// that address out for its window, right token included (only the Bearer scheme is a guess, and a
// signed-in operator's session is honoured whatever else is sent); other addresses are unaffected, however
// many guess; the operator API is never locked (operator-api.md answers 401, and its event feed
// must not be stoppable by strangers); and a locked-out attempt never reaches the comparison.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GuessLimiter, TooManyGuesses } from '../src/lib/guess-limit.js';
import { MemoryRateLimiter } from '../src/lib/rate-limit.js';
import { ADMIN_TOKEN, describeStoresOnFakeClock, FakeClock, type TestApp } from './helpers/app.js';
import { pageClient } from './helpers/pages.js';

const WRONG = 'not-the-operator-token';
/** One wrong token a minute per address is refilled every 6 s (10 a minute). */
const REFILL_MS = 6_000;

/** The operator API with `token` from `ip`. */
const api = (t: TestApp, ip: string, token: string) =>
  t.app.inject({
    method: 'GET',
    url: '/internal/v1/messages',
    headers: { authorization: `Bearer ${token}` },
    remoteAddress: ip,
  });

/** The console's sign-in form (with its CSRF token) with `token` from `ip`. */
async function signIn(t: TestApp, ip: string, token: string) {
  const client = pageClient(t.app, '', ip);
  await client.get('/console/sign-in');
  return client.post('/console/sign-in', { token });
}

/** The console's bearer check with `token` from `ip`. */
const consoleBearer = (t: TestApp, ip: string, token: string, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'GET',
    url: '/console/audit',
    headers: { authorization: `Bearer ${token}`, ...headers },
    remoteAddress: ip,
  });

await describeStoresOnFakeClock('operator token guesses, per address', (t, clock) => {
  it('the operator API answers every wrong token 401, as operator-api.md says, and the right one after them', async () => {
    const ip = '198.51.100.1';
    for (let i = 0; i < 30; i++) assert.equal((await api(t(), ip, `${WRONG}${i}`)).statusCode, 401, `guess ${i}`);
    assert.equal((await api(t(), ip, ADMIN_TOKEN)).statusCode, 200);
  });

  it('the console bearer: the 11th wrong token from one address is a 429 with Retry-After; the right one waits', async () => {
    const ip = '198.51.100.6';
    for (let i = 0; i < 10; i++) assert.equal((await consoleBearer(t(), ip, `${WRONG}${i}`)).statusCode, 401);
    const limited = await consoleBearer(t(), ip, WRONG);
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.headers['retry-after'], '6');
    const right = await consoleBearer(t(), ip, ADMIN_TOKEN);
    assert.equal(right.statusCode, 429, 'the right token is refused too, or the lock would tell it apart');
    assert.equal((await consoleBearer(t(), '198.51.100.7', ADMIN_TOKEN)).statusCode, 200, 'another address');
    clock.advance(REFILL_MS);
    assert.equal((await consoleBearer(t(), ip, ADMIN_TOKEN)).statusCode, 200, 'accepted once the window passed');
  });

  it('an IPv6 client is counted by its /64: new addresses in it are no new budget', async () => {
    for (let i = 0; i < 10; i++) {
      assert.equal((await consoleBearer(t(), `2001:db8:1:2::${(i + 1).toString(16)}`, WRONG)).statusCode, 401);
    }
    assert.equal((await consoleBearer(t(), '2001:db8:1:2:ffff::9', ADMIN_TOKEN)).statusCode, 429);
    assert.equal((await consoleBearer(t(), '2001:db8:1:3::1', ADMIN_TOKEN)).statusCode, 200, 'the next /64');
    clock.advance(60_000);
  });

  it('the console: the 11th wrong sign-in from one address is the sign-in page with 429, Retry-After and the wait', async () => {
    const ip = '198.51.100.3';
    for (let i = 0; i < 10; i++) {
      const wrong = await signIn(t(), ip, `${WRONG}${i}`);
      assert.equal(wrong.headers.location, '/console/sign-in?wrong=1', `guess ${i}`);
    }
    const limited = await signIn(t(), ip, WRONG);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers['retry-after'], '6');
    assert.match(limited.body, /role="alert">Too many attempts with a wrong token [^<]*try again in 6 s\.</);
    assert.match(limited.body, /name="csrf" value="[^"]+"/, 'the form is there to try again');
    const right = await signIn(t(), ip, ADMIN_TOKEN);
    assert.equal(right.status, 429, 'the right token is refused within the window');
    const elsewhere = await signIn(t(), '198.51.100.4', ADMIN_TOKEN);
    assert.equal(elsewhere.headers.location, '/console/', 'another address signs in');
    clock.advance(REFILL_MS);
    assert.equal((await signIn(t(), ip, ADMIN_TOKEN)).headers.location, '/console/', 'signed in after the window');
  });

  it('an Authorization header of another scheme is no guess, and a signed-in operator is never locked out', async () => {
    const ip = '198.51.100.8';
    // A browser behind a basic-auth proxy sends the proxy's credentials with every request.
    const basic = { authorization: `Basic ${Buffer.from('ops:proxy-password').toString('base64')}` };
    const client = pageClient(t().app, '', ip);
    await client.get('/console/sign-in');
    assert.equal((await client.post('/console/sign-in', { token: ADMIN_TOKEN, name: 'Olga' })).status, 303);
    for (let i = 0; i < 15; i++) assert.equal((await client.get('/console/audit', basic)).status, 200, `page ${i}`);
    const stranger = await t().app.inject({ method: 'GET', url: '/console/audit', headers: basic, remoteAddress: ip });
    assert.equal(stranger.statusCode, 401, 'not signed in, and not a guess either');
    // The address's whole budget is still there: ten wrong bearer tokens, then the lock.
    for (let i = 0; i < 10; i++) assert.equal((await consoleBearer(t(), ip, `${WRONG}${i}`)).statusCode, 401);
    assert.equal((await consoleBearer(t(), ip, ADMIN_TOKEN)).statusCode, 429);
    const signedIn = await client.get('/console/audit', { authorization: `Bearer ${WRONG}` });
    assert.equal(signedIn.status, 200, 'the console session is honoured while its address is locked');
    clock.advance(60_000);
  });

  it('the sign-in form and the console bearer share one budget', async () => {
    const ip = '198.51.100.5';
    for (let i = 0; i < 5; i++) assert.equal((await signIn(t(), ip, WRONG)).status, 303);
    for (let i = 0; i < 5; i++) assert.equal((await consoleBearer(t(), ip, WRONG)).statusCode, 401);
    const limited = await consoleBearer(t(), ip, ADMIN_TOKEN);
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.headers['retry-after'], '6');
    assert.equal((await signIn(t(), ip, ADMIN_TOKEN)).status, 429);
    clock.advance(60_000);
  });
});

await describeStoresOnFakeClock('operator token guesses, over all addresses', (t, clock) => {
  it('a hundred wrong sign-ins from a hundred addresses lock no one else out (strangers cannot lock the console)', async () => {
    for (let i = 0; i < 100; i++) assert.equal((await signIn(t(), `203.0.113.${i}`, WRONG)).status, 303, `form ${i}`);
    assert.equal((await signIn(t(), '203.0.113.200', ADMIN_TOKEN)).headers.location, '/console/');
    assert.equal((await api(t(), '203.0.113.201', ADMIN_TOKEN)).statusCode, 200);
    clock.advance(60_000);
  });
});

await describeStoresOnFakeClock(
  'operator token guesses behind a trusted proxy',
  (t, clock) => {
    it('counts the client X-Forwarded-For names, not the proxy, and only from a proxy TRUST_PROXY lists', async () => {
      const via = (client: string, proxy: string, token: string) =>
        consoleBearer(t(), proxy, token, { 'x-forwarded-for': client });
      for (let i = 0; i < 10; i++) assert.equal((await via('192.0.2.1', '10.0.0.2', WRONG)).statusCode, 401);
      assert.equal((await via('192.0.2.1', '10.0.0.2', ADMIN_TOKEN)).statusCode, 429, 'that client is locked');
      assert.equal(
        (await via('192.0.2.2', '10.0.0.2', ADMIN_TOKEN)).statusCode,
        200,
        'others behind the proxy are not',
      );
      // A stranger's own X-Forwarded-For is not believed: it counts as its own address.
      for (let i = 0; i < 10; i++) assert.equal((await via('192.0.2.3', '198.51.100.9', WRONG)).statusCode, 401);
      assert.equal(
        (await via('192.0.2.3', '10.0.0.2', ADMIN_TOKEN)).statusCode,
        200,
        'the named client was never counted',
      );
      assert.equal((await via('192.0.2.4', '198.51.100.9', ADMIN_TOKEN)).statusCode, 429, 'the stranger was');
      clock.advance(60_000);
    });
  },
  { env: { TRUST_PROXY: '10.0.0.0/8' } },
);

describe('a locked-out attempt is refused before the token is compared', () => {
  it('never runs the check, and throws TooManyGuesses with the wait', async () => {
    const clock = new FakeClock();
    const limiter = new GuessLimiter('test', new MemoryRateLimiter(), undefined, clock);
    let compared = 0;
    const wrong = (): Promise<string | undefined> => {
      compared++;
      return Promise.resolve(undefined);
    };
    for (let i = 0; i < 10; i++) assert.equal(await limiter.attempt('a', wrong), undefined);
    assert.equal(compared, 10);
    const refused = await limiter.attempt('a', wrong).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(refused instanceof TooManyGuesses, 'refused as too many guesses');
    assert.equal(refused.retryAfterS, 6);
    assert.equal(compared, 10, 'the locked-out attempt compared nothing');
    assert.equal(await limiter.attempt('b', () => Promise.resolve('right')), 'right', 'another address is checked');
  });
});
