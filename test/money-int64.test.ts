// Balances past 2^53 hundredths (where a JS number drops a cent) read back exactly through every
// surface that shows them: the operator's balance read, a transfer, and the ledger check.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ledgerFailures } from '../src/cli/commands/ledger-check.js';
import { exactJson } from '../src/lib/exact-json.js';
import { checkLedger } from '../src/modules/points/repo.js';
import { adminHeaders, describeStores } from './helpers/app.js';
import { applyEvents, createApp, createUsers, type TestUser } from './helpers/factories.js';

// 2^53 + 1 hundredths: the nearest double is 2^53, one cent less.
const BIG = '90071992547409.93';
const BIG_CENTS = 9_007_199_254_740_993n;
// One credit is at most 9999999999999.99 points: nine of those and the rest make BIG.
const CREDITS = [...Array<string>(9).fill('9999999999999.99'), '71992547410.02'];

await describeStores('money past 2^53 hundredths', (t) => {
  let rich: TestUser;
  let dev: TestUser;

  const balance = async (user: TestUser): Promise<string> => {
    const res = await t().app.inject({
      method: 'GET',
      url: `/internal/v1/users/${user.user_id}/balance`,
      headers: adminHeaders,
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ balance: string }>().balance;
  };

  it('the operator reads a credited balance of 2^53 + 1 hundredths exactly', async () => {
    [rich, dev] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
    await applyEvents(
      t().app,
      CREDITS.map((amount) => ({ type: 'points.credited', data: { user_id: rich.user_id, amount } })),
    );
    assert.equal(await balance(rich), BIG);
  });

  it('a transfer of one cent leaves both sides exact', async () => {
    const creds = await createApp(t().app, dev.user_id);
    const ref = await t().services.oauth.appForRedirect(creds.app_id, 'https://client.example/cb');
    assert.ok(ref !== undefined, 'redirect URI registered');
    const order = await t().services.payments.authorize(ref, rich.user_id, {
      amount: '0.01',
      payer_user_id: rich.user_id,
      receiver_user_id: dev.user_id,
      pay_type: 'send',
      pay_info: 'one cent',
    });
    const qs = new URLSearchParams({ app_id: creds.app_id, app_secret: creds.app_secret }).toString();
    const res = await t().app.inject({
      method: 'POST',
      url: `/openapi/payment/transfer?${qs}`,
      payload: { access_token: order.code, serial_id: order.serial_id },
    });
    assert.deepEqual(res.json(), {
      code: '1',
      msg: 'success',
      source: 'open_platform',
      amount: '0.01',
      pay_type: 'send',
      payer_user_id: rich.user_id,
      receiver_user_id: dev.user_id,
    });
    assert.equal(await balance(rich), '90071992547409.92');
    assert.equal(await balance(dev), '0.01');
  });

  it('the ledger check sums exactly and prints every digit', async () => {
    const check = await checkLedger(t().services.db.k);
    assert.equal(check.creditedCents, BIG_CENTS);
    assert.equal(check.userBalancesCents, BIG_CENTS);
    assert.equal(check.sumOfBalancesCents, 0n);
    assert.deepEqual(ledgerFailures(check), []);
    assert.match(exactJson(check), /"creditedCents": 9007199254740993,/);
  });
});
