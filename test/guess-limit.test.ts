// Guesses of the operator token are limited (audit finding): ten wrong tokens from one address,
// on the console's sign-in form or as the operator API's bearer token, lock that address out for
// its window, right token included; other addresses are unaffected; a hundred from anywhere lock
// the sign-in form, never the operator API (the application's event feed); and a locked-out
// attempt never reaches the token's comparison.
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

await describeStoresOnFakeClock('operator token guesses, per address', (t, clock) => {
  it('the operator API: the 11th wrong token from one address is a 429 with Retry-After; the right one waits out the window', async () => {
    const ip = '198.51.100.1';
    for (let i = 0; i < 10; i++) assert.equal((await api(t(), ip, `${WRONG}${i}`)).statusCode, 401, `guess ${i}`);
    const limited = await api(t(), ip, WRONG);
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.headers['retry-after'], '6');
    assert.deepEqual(limited.json(), {
      error: 'too_many_attempts',
      message: 'too many wrong operator tokens; try again in 6 s',
    });
    const right = await api(t(), ip, ADMIN_TOKEN);
    assert.equal(right.statusCode, 429, 'the right token is refused too, or the lock would tell it apart');
    assert.deepEqual(right.json(), limited.json());
    assert.equal((await api(t(), '198.51.100.2', ADMIN_TOKEN)).statusCode, 200, 'another address is unaffected');
    clock.advance(REFILL_MS);
    assert.equal((await api(t(), ip, ADMIN_TOKEN)).statusCode, 200, 'accepted once the window passed');
    assert.equal((await api(t(), '198.51.100.1', ADMIN_TOKEN)).statusCode, 200, 'a right token is never counted');
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

  it('the console and the operator API share one budget, and the console bearer check counts too', async () => {
    const ip = '198.51.100.5';
    for (let i = 0; i < 5; i++) assert.equal((await signIn(t(), ip, WRONG)).status, 303);
    for (let i = 0; i < 5; i++) {
      const res = await t().app.inject({
        method: 'GET',
        url: '/console/audit',
        headers: { authorization: `Bearer ${WRONG}` },
        remoteAddress: ip,
      });
      assert.equal(res.statusCode, 401);
    }
    const limited = await api(t(), ip, ADMIN_TOKEN);
    assert.equal(limited.statusCode, 429);
    const console = await t().app.inject({
      method: 'GET',
      url: '/console/audit',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      remoteAddress: ip,
    });
    assert.equal(console.statusCode, 429);
    assert.equal(console.headers['retry-after'], '6');
    clock.advance(REFILL_MS);
  });
});

await describeStoresOnFakeClock('operator token guesses, over all addresses', (t, clock) => {
  it('a hundred wrong tokens from a hundred addresses lock the sign-in form for everyone, never the operator API', async () => {
    // Wrong bearer tokens count for their own address only.
    for (let i = 0; i < 100; i++) assert.equal((await api(t(), `198.18.0.${i}`, WRONG)).statusCode, 401, `api ${i}`);
    assert.equal((await signIn(t(), '203.0.113.199', ADMIN_TOKEN)).headers.location, '/console/');
    for (let i = 0; i < 100; i++) assert.equal((await signIn(t(), `203.0.113.${i}`, WRONG)).status, 303, `form ${i}`);
    const fresh = await signIn(t(), '203.0.113.200', ADMIN_TOKEN);
    assert.equal(fresh.status, 429, 'an address that never guessed is refused on the form');
    assert.equal(fresh.headers['retry-after'], '1');
    // Strangers cannot stop the application's feed: the API answers every address's right token.
    assert.equal((await api(t(), '203.0.113.201', ADMIN_TOKEN)).statusCode, 200);
    // 100 a minute: one more is allowed 0.6 s later.
    clock.advance(600);
    assert.equal((await signIn(t(), '203.0.113.200', ADMIN_TOKEN)).headers.location, '/console/');
    clock.advance(60_000);
  });
});

await describeStoresOnFakeClock(
  'operator token guesses behind a trusted proxy',
  (t, clock) => {
    it('counts the client X-Forwarded-For names, not the proxy, and only from a proxy TRUST_PROXY lists', async () => {
      const via = (client: string, proxy: string, token: string) =>
        t().app.inject({
          method: 'GET',
          url: '/internal/v1/messages',
          headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': client },
          remoteAddress: proxy,
        });
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
