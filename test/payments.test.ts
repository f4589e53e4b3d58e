// Authorized payment (seed-api.md "Authorized payment", "Authentication" item 8, "States and
// transitions"; decisions.md section 5): one-time tokens from PaymentsService.authorize (the
// authorize page is tested elsewhere), POST /openapi/payment/transfer, exactly-once transfers,
// balances that never go below zero under concurrency, and a clean double-entry ledger.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AppError, Errors } from '../src/errors.js';
import type { AppRef } from '../src/modules/oauth/service.js';
import { SOURCE, type PaymentRequest } from '../src/modules/payments/service.js';
import { checkLedger } from '../src/modules/points/repo.js';
import { adminHeaders, describeStoresOnFakeClock, type TestApp } from './helpers/app.js';
import { applyEvents, createApp, createUsers, uid, type Creds, type TestUser } from './helpers/factories.js';

const REDIRECT = 'https://client.example/cb';
const MIN = 60_000;

type Body = Record<string, unknown>;
interface Answer {
  status: number;
  body: Body;
}
interface Order {
  code: string;
  serial_id: string;
  source: string;
  amount: string;
  pay_type: string;
  payer_user_id: string;
  receiver_user_id: string;
}

const isRecord = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A transfer's success: code "1" with the order as the user confirmed it (what authorize answered). */
const paid = ({ amount, pay_type, payer_user_id, receiver_user_id }: Order) => ({
  code: '1',
  msg: 'success',
  source: SOURCE,
  amount,
  pay_type,
  payer_user_id,
  receiver_user_id,
});

/** A transfer result `{code:"<negative code>", msg, source}`, HTTP 200. */
function assertResult(r: Answer, code: string): void {
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(Object.keys(r.body).sort(), ['code', 'msg', 'source']);
  assert.equal(r.body.code, code, JSON.stringify(r.body));
  assert.equal(r.body.source, SOURCE);
  assert.ok(
    typeof r.body.msg === 'string' && r.body.msg.length > 0,
    "typeof r.body.msg === 'string' && r.body.msg.length > 0",
  );
}

const isParamInvalid = (e: unknown): boolean => e instanceof AppError && e.def === Errors.loginParamInvalid;

/** The calls of one suite, on its running app. */
function client(t: () => TestApp) {
  let credited = 0;
  const api = {
    /** Cents credited through `points.credited` by this suite (what the ledger must show). */
    credited: () => credited,
    async ref(creds: Creds): Promise<AppRef> {
      const ref = await t().services.oauth.appForRedirect(creds.app_id, REDIRECT);
      assert.ok(ref !== undefined, 'redirect URI registered');
      return ref;
    },
    async credit(user: TestUser, amount: string): Promise<void> {
      await applyEvents(t().app, [{ type: 'points.credited', data: { user_id: user.user_id, amount } }]);
      credited += Math.round(Number(amount) * 100);
    },
    /** The balances of `users`, in order. */
    async balances(...users: TestUser[]): Promise<string[]> {
      const all: string[] = [];
      for (const user of users) all.push(await api.balance(user));
      return all;
    },
    async balance(user: TestUser): Promise<string> {
      const res = await t().app.inject({
        method: 'GET',
        url: `/internal/v1/users/${encodeURIComponent(user.user_id)}/balance`,
        headers: adminHeaders,
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<Body>();
      assert.equal(body.user_id, user.user_id);
      assert.ok(typeof body.balance === 'string', "typeof body.balance === 'string'");
      return body.balance;
    },
    /**
     * A confirmed payment: with `send` the authorizing user `user` pays the app's owner `dev`;
     * with `receive` the app's owner pays `user`.
     */
    async order(
      creds: Creds,
      user: TestUser,
      dev: TestUser,
      amount: string | number,
      payType: 'send' | 'receive' = 'send',
    ): Promise<Order> {
      const p: PaymentRequest = {
        amount,
        payer_user_id: payType === 'send' ? user.user_id : dev.user_id,
        receiver_user_id: payType === 'send' ? dev.user_id : user.user_id,
        pay_type: payType,
        pay_info: 'bench of the payment test',
      };
      return t().services.payments.authorize(await api.ref(creds), user.user_id, p);
    },
    /** `expected`: what the app asked for (amount, pay_type, payer_user_id, receiver_user_id). */
    async transfer(creds: Creds, token: string, serialId: string, expected: Body = {}): Promise<Answer> {
      const qs = new URLSearchParams({ app_id: creds.app_id, app_secret: creds.app_secret }).toString();
      const res = await t().app.inject({
        method: 'POST',
        url: `/openapi/payment/transfer?${qs}`,
        payload: { access_token: token, serial_id: serialId, ...expected },
      });
      const body: unknown = res.json();
      assert.ok(isRecord(body), res.body);
      return { status: res.statusCode, body };
    },
    async assertLedgerClean(): Promise<void> {
      const l = await checkLedger(t().services.db.k);
      assert.deepEqual(
        {
          sumOfBalancesCents: Number(l.sumOfBalancesCents),
          creditedCents: Number(l.creditedCents),
          userBalancesCents: Number(l.userBalancesCents),
          negativeUserAccounts: l.negativeUserAccounts,
          entriesMatchBalances: l.entriesMatchBalances,
          unbalancedTransactions: l.unbalancedTransactions,
        },
        {
          sumOfBalancesCents: 0,
          creditedCents: credited,
          userBalancesCents: credited,
          negativeUserAccounts: 0,
          entriesMatchBalances: true,
          unbalancedTransactions: 0,
        },
      );
    },
  };
  return api;
}

await describeStoresOnFakeClock('authorized payment', (t, clock) => {
  const c = client(t);
  let dev: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let app: Creds;
  let other: Creds;

  it('sets up the developer, two users, two apps, and credits points', async () => {
    [dev, alice, bob] = (await createUsers(t().app, 3)) as [TestUser, TestUser, TestUser];
    app = await createApp(t().app, dev.user_id);
    other = await createApp(t().app, bob.user_id);
    await c.credit(alice, '10.00');
    await c.credit(dev, '100');
    assert.deepEqual(await c.balances(alice, dev, bob), ['10', '100', '0']);
  });

  it('authorize issues a serial and a one-time token with the source marker', async () => {
    const a = await c.order(app, alice, dev, '1');
    const b = await c.order(app, alice, dev, '1');
    assert.deepEqual(Object.keys(a), [
      'code',
      'serial_id',
      'source',
      'amount',
      'pay_type',
      'payer_user_id',
      'receiver_user_id',
    ]);
    assert.equal(a.source, SOURCE);
    assert.ok(a.code.length >= 20 && a.serial_id.length > 0, 'a.code.length >= 20 && a.serial_id.length > 0');
    assert.notEqual(a.code, b.code);
    assert.notEqual(a.serial_id, b.serial_id);
  });

  it('send: one-time token then transfer answers {code:"1", msg:"success", source} and moves the points', async () => {
    const o = await c.order(app, alice, dev, '2.50');
    const r = await c.transfer(app, o.code, o.serial_id);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, paid(o));
    assert.deepEqual(await c.balances(alice, dev), ['7.5', '102.5']);
  });

  it('authorize and the transfer show the order as confirmed: exact decimal amount, pay_type and parties', async () => {
    const [carol] = (await createUsers(t().app, 1)) as [TestUser];
    await c.credit(carol, '20');
    // Each amount paid to the developer and back, so the balances the later cases check stay as they were.
    const cases: [string | number, 'send' | 'receive', string][] = [
      ['2.50', 'send', '2.5'],
      [2.5, 'receive', '2.5'],
      [12, 'send', '12'],
      ['12.00', 'receive', '12'],
      ['0.01', 'send', '0.01'],
      [0.01, 'receive', '0.01'],
    ];
    for (const [amount, payType, shown] of cases) {
      const o = await c.order(app, carol, dev, amount, payType);
      const [payer, receiver] = payType === 'send' ? [carol, dev] : [dev, carol];
      const order = {
        amount: shown,
        pay_type: payType,
        payer_user_id: payer.user_id,
        receiver_user_id: receiver.user_id,
      };
      const { code, serial_id, ...shownByAuthorize } = o;
      assert.deepEqual(shownByAuthorize, { source: SOURCE, ...order });
      assert.deepEqual((await c.transfer(app, code, serial_id)).body, {
        code: '1',
        msg: 'success',
        source: SOURCE,
        ...order,
      });
    }
    assert.deepEqual(await c.balances(carol, dev), ['20', '102.5']);
  });

  it('receive: the developer pays the authorizing user', async () => {
    const o = await c.order(app, bob, dev, 0.5, 'receive');
    assert.deepEqual((await c.transfer(app, o.code, o.serial_id)).body, paid(o));
    assert.deepEqual(await c.balances(bob, dev), ['0.5', '102']);
  });

  it('the same serial again gives -2016 and the balance moves once', async () => {
    const o = await c.order(app, alice, dev, '1.25');
    assert.deepEqual((await c.transfer(app, o.code, o.serial_id)).body, paid(o));
    for (let i = 0; i < 3; i++) assertResult(await c.transfer(app, o.code, o.serial_id), '-2016');
    assert.deepEqual(await c.balances(alice, dev), ['6.25', '103.25']);
  });

  it('insufficient balance gives -7048 and moves nothing; the failed order stays failed', async () => {
    const o = await c.order(app, alice, dev, '6.26');
    assertResult(await c.transfer(app, o.code, o.serial_id), '-7048');
    assert.deepEqual(await c.balances(alice, dev), ['6.25', '103.25']);
    // The same request again, even after a top-up, does not move anything.
    await c.credit(alice, '1');
    assertResult(await c.transfer(app, o.code, o.serial_id), '-7048');
    assert.equal(await c.balance(alice), '7.25');
    // The exact balance is enough.
    const all = await c.order(app, alice, dev, '7.25');
    assert.deepEqual((await c.transfer(app, all.code, all.serial_id)).body, paid(all));
    assert.deepEqual(await c.balances(alice, dev), ['0', '110.5']);
    await c.credit(alice, '10');
  });

  it('a payer who never had points gets -7048', async () => {
    const [poor] = (await createUsers(t().app, 1)) as [TestUser];
    const o = await c.order(app, poor, dev, '0.01');
    assertResult(await c.transfer(app, o.code, o.serial_id), '-7048');
    assert.deepEqual(await c.balances(poor, dev), ['0', '110.5']);
  });

  it('the token of another serial, an unknown serial or token, or another app: an error result, nothing moves', async () => {
    const o = await c.order(app, alice, dev, '1');
    const o2 = await c.order(app, alice, dev, '1');
    const theirs = await c.order(other, alice, bob, '1');
    const tries: [Creds, string, string][] = [
      [app, o2.code, o.serial_id],
      [app, o.code, o2.serial_id],
      [app, 'garbage', o.serial_id],
      [app, o.code, 'no-such-serial'],
      [app, theirs.code, theirs.serial_id],
      [app, o.code, theirs.serial_id],
      [other, o.code, o.serial_id],
    ];
    for (const [creds, token, serial] of tries) assertResult(await c.transfer(creds, token, serial), '-2006');
    assert.deepEqual(await c.balances(alice, dev), ['10', '110.5']);
    // None of the refusals used an order up.
    for (const [creds, x] of [
      [app, o],
      [app, o2],
      [other, theirs],
    ] as const) {
      assert.deepEqual((await c.transfer(creds, x.code, x.serial_id)).body, paid(x));
    }
    assert.deepEqual(await c.balances(alice, dev, bob), ['7', '112.5', '1.5']);
  });

  it('the one-time token is valid 5 minutes: at 4:59.999 it works, at 5:00 it is an error result', async () => {
    const late = await c.order(app, alice, dev, '1');
    const inTime = await c.order(app, alice, dev, '1');
    clock.advance(5 * MIN - 1);
    assert.deepEqual((await c.transfer(app, inTime.code, inTime.serial_id)).body, paid(inTime));
    clock.advance(1);
    assertResult(await c.transfer(app, late.code, late.serial_id), '-2006');
    assert.equal(await c.balance(alice), '6');
    clock.advance(60 * MIN);
    assertResult(await c.transfer(app, late.code, late.serial_id), '-2006');
    assert.equal(await c.balance(alice), '6');
    // A completed order stays a repeat, whatever the time.
    assertResult(await c.transfer(app, inTime.code, inTime.serial_id), '-2016');
  });

  it('bad app credentials give the result code -2004 (HTTP 200) and use nothing up', async () => {
    const o = await c.order(app, alice, dev, '1');
    for (const creds of [
      { ...app, app_secret: `${app.app_secret}x` },
      { ...app, app_secret: other.app_secret },
      { ...app, app_id: 'no-such-app' },
    ]) {
      assertResult(await c.transfer(creds, o.code, o.serial_id), '-2004');
    }
    assert.equal(await c.balance(alice), '6');
    assert.deepEqual((await c.transfer(app, o.code, o.serial_id)).body, paid(o));
    assert.equal(await c.balance(alice), '5');
  });

  it('missing or empty parameters are a Param error (HTTP 401)', async () => {
    const o = await c.order(app, alice, dev, '1');
    const qs = (q: Record<string, string>) => new URLSearchParams(q).toString();
    const full = { app_id: app.app_id, app_secret: app.app_secret };
    const cases: [string, Body, string][] = [
      [qs({ app_id: app.app_id }), { access_token: o.code, serial_id: o.serial_id }, 'app_secret'],
      [qs({ app_secret: app.app_secret }), { access_token: o.code, serial_id: o.serial_id }, 'app_id'],
      [qs(full), { access_token: o.code }, 'serial_id'],
      [qs(full), { serial_id: o.serial_id }, 'access_token'],
      [qs(full), { access_token: '', serial_id: o.serial_id }, 'access_token'],
      [qs(full), { access_token: o.code, serial_id: 7 }, 'serial_id'],
    ];
    for (const [query, payload, field] of cases) {
      const res = await t().app.inject({ method: 'POST', url: `/openapi/payment/transfer?${query}`, payload });
      assert.equal(res.statusCode, 401, res.body);
      const body = res.json<Body>();
      assert.deepEqual(
        { ...body, detail: undefined },
        { error: 'Bad Request', code: 401, message: 'Param error', detail: undefined },
      );
      assert.match(String(body.detail), new RegExp(field));
    }
    assert.deepEqual((await c.transfer(app, o.code, o.serial_id)).body, paid(o));
  });

  it('validate(): amounts, pay_type and who is who', async () => {
    const pay = t().services.payments;
    const ref = await c.ref(app);
    const send = (over: Partial<PaymentRequest> = {}): PaymentRequest => ({
      amount: '1',
      payer_user_id: alice.user_id,
      receiver_user_id: dev.user_id,
      pay_type: 'send',
      pay_info: 'info',
      ...over,
    });
    const receive = (over: Partial<PaymentRequest> = {}): PaymentRequest => ({
      amount: '1',
      payer_user_id: dev.user_id,
      receiver_user_id: alice.user_id,
      pay_type: 'receive',
      pay_info: 'info',
      ...over,
    });
    // Accepted: in hundredths.
    for (const [amount, cents] of [
      ['0.01', 1],
      ['12.5', 1250],
      ['12.50', 1250],
      [' 3 ', 300],
      [12.34, 1234],
      [7, 700],
      [0.1, 10],
    ] as const) {
      assert.deepEqual(await pay.validate(alice.user_id, send({ amount }), ref), {
        cents,
        payer: alice.user_id,
        receiver: dev.user_id,
      });
    }
    assert.deepEqual(await pay.validate(alice.user_id, receive()), {
      cents: 100,
      payer: dev.user_id,
      receiver: alice.user_id,
    });
    const refused: [string, string, PaymentRequest][] = [
      ['amount 0', alice.user_id, send({ amount: 0 })],
      ['amount "0"', alice.user_id, send({ amount: '0' })],
      ['amount "0.00"', alice.user_id, send({ amount: '0.00' })],
      ['amount -1', alice.user_id, send({ amount: -1 })],
      ['amount "-1.00"', alice.user_id, send({ amount: '-1.00' })],
      ['amount "1.234"', alice.user_id, send({ amount: '1.234' })],
      ['amount 1.005', alice.user_id, send({ amount: 1.005 })],
      ['amount 0.001', alice.user_id, send({ amount: 0.001 })],
      ['amount 0.1 + 0.2', alice.user_id, send({ amount: 0.1 + 0.2 })],
      ['amount NaN', alice.user_id, send({ amount: Number.NaN })],
      ['amount 1e21', alice.user_id, send({ amount: 1e21 })],
      ['amount text', alice.user_id, send({ amount: 'ten' })],
      ['amount empty', alice.user_id, send({ amount: '' })],
      ['pay_type pay', alice.user_id, send({ pay_type: 'pay' })],
      ['pay_type SEND', alice.user_id, send({ pay_type: 'SEND' })],
      ['pay_type empty', alice.user_id, send({ pay_type: '' })],
      ['send: payer is not the authorizing user', bob.user_id, send()],
      ['send: payer is someone else', alice.user_id, send({ payer_user_id: bob.user_id })],
      ['receive: receiver is not the authorizing user', bob.user_id, receive()],
      ['receive: receiver is someone else', alice.user_id, receive({ receiver_user_id: bob.user_id })],
      ['payer and receiver the same', alice.user_id, send({ receiver_user_id: alice.user_id })],
      ['unknown receiver', alice.user_id, send({ receiver_user_id: uid('nobody') })],
      ['pay_info too long', alice.user_id, send({ pay_info: 'x'.repeat(1025) })],
    ];
    for (const [name, user, p] of refused) {
      await assert.rejects(pay.validate(user, p), isParamInvalid, name);
      await assert.rejects(pay.validate(user, p, ref), isParamInvalid, name);
      await assert.rejects(pay.authorize(ref, user, p), isParamInvalid, name);
    }
    // The other side must be the developer's user (the app's owner) once the app is known.
    const notTheDeveloper: [string, PaymentRequest][] = [
      ['send to a user who is not the developer', send({ receiver_user_id: bob.user_id })],
      ['receive from a user who is not the developer', receive({ payer_user_id: bob.user_id })],
    ];
    for (const [name, p] of notTheDeveloper) {
      await assert.rejects(pay.validate(alice.user_id, p, ref), isParamInvalid, name);
      await assert.rejects(pay.authorize(ref, alice.user_id, p), isParamInvalid, name);
    }
    assert.equal(await c.balance(bob), '1.5');
  });

  it('20 concurrent transfers of 1.00 from a payer holding 10.00: exactly 10 succeed, 10 get -7048', async () => {
    const [payer] = (await createUsers(t().app, 1)) as [TestUser];
    await c.credit(payer, '10.00');
    const before = await c.balance(dev);
    const orders = await Promise.all(Array.from({ length: 20 }, () => c.order(app, payer, dev, '1.00')));
    const answers = await Promise.all(orders.map((o) => c.transfer(app, o.code, o.serial_id)));
    const codes = answers.map((r) => r.body.code);
    assert.equal(codes.filter((x) => x === '1').length, 10, JSON.stringify(codes));
    assert.equal(codes.filter((x) => x === '-7048').length, 10, JSON.stringify(codes));
    answers.forEach((r, i) => {
      const o = orders[i];
      assert.ok(o !== undefined, 'one answer per order');
      if (r.body.code === '1') assert.deepEqual(r.body, paid(o));
      else assertResult(r, '-7048');
    });
    assert.equal(await c.balance(payer), '0');
    assert.equal(Number(await c.balance(dev)), Number(before) + 10);
    // Each serial again: a repeat or the same failure, never a second move.
    const again = await Promise.all(orders.map((o) => c.transfer(app, o.code, o.serial_id)));
    assert.deepEqual(
      again.map((r) => r.body.code),
      codes.map((x) => (x === '1' ? '-2016' : '-7048')),
    );
    assert.equal(await c.balance(payer), '0');
    await c.assertLedgerClean();
  });

  it('the same serial sent 5 times concurrently: exactly one success, the rest -2016', async () => {
    const [payer] = (await createUsers(t().app, 1)) as [TestUser];
    await c.credit(payer, '10.00');
    const o = await c.order(app, payer, dev, '3.00');
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => c.transfer(app, o.code, o.serial_id)));
    const codes = answers.map((r) => r.body.code).sort();
    assert.deepEqual(codes, ['-2016', '-2016', '-2016', '-2016', '1']);
    assert.equal(await c.balance(payer), '7');
    await c.assertLedgerClean();
  });

  it('several serials, each sent several times concurrently, against a short balance', async () => {
    const [payer] = (await createUsers(t().app, 1)) as [TestUser];
    await c.credit(payer, '5.00');
    const orders = await Promise.all(Array.from({ length: 8 }, () => c.order(app, payer, dev, '1.00')));
    const answers = await Promise.all(
      orders.flatMap((o) =>
        [1, 2, 3].map(async () => ({ serial: o.serial_id, r: await c.transfer(app, o.code, o.serial_id) })),
      ),
    );
    const succeeded = new Set(answers.filter((a) => a.r.body.code === '1').map((a) => a.serial));
    assert.equal(answers.filter((a) => a.r.body.code === '1').length, 5, 'one success per moved serial');
    assert.equal(succeeded.size, 5);
    for (const a of answers)
      assert.ok(
        ['1', '-2016', '-7048'].includes(String(a.r.body.code)),
        "['1', '-2016', '-7048'].includes(String(a.r.body.code))",
      );
    assert.equal(await c.balance(payer), '0');
    await c.assertLedgerClean();
  });

  it('the app may state the order it asked for: another amount, pay_type or party gives -2006 and moves nothing', async () => {
    const [payer] = (await createUsers(t().app, 1)) as [TestUser];
    await c.credit(payer, '20');
    const asked = { amount: '12.50', pay_type: 'send', payer_user_id: payer.user_id, receiver_user_id: dev.user_id };
    const o = await c.order(app, payer, dev, '12.5');
    const before = await c.balance(dev);
    for (const wrong of [
      { amount: '12.51' },
      { amount: 100 },
      { pay_type: 'receive' },
      { payer_user_id: dev.user_id },
      { receiver_user_id: payer.user_id },
    ]) {
      const r = await c.transfer(app, o.code, o.serial_id, { ...asked, ...wrong });
      assertResult(r, '-2006');
      assert.equal(r.body.msg, 'the order is not the payment the app expected (amount, pay_type, payer or receiver)');
    }
    assert.deepEqual(await c.balances(payer, dev), ['20', before]);
    for (const amount of ['twelve', '1.234']) {
      const bad = await c.transfer(app, o.code, o.serial_id, { ...asked, amount });
      assert.equal(bad.status, 401);
      assert.equal(bad.body.message, 'Param error');
    }
    // Nothing was spent: the order as asked goes through once.
    assert.deepEqual((await c.transfer(app, o.code, o.serial_id, { ...asked, amount: 12.5 })).body, paid(o));
    assertResult(await c.transfer(app, o.code, o.serial_id, asked), '-2016');
    assert.equal(await c.balance(payer), '7.5');
  });

  it('a transfer refused for its balance while a repeat paid the serial answers -2016, not -7048', async () => {
    // The credit lands between the two: on SQLite all three share a group commit, where the first
    // rolls back to its savepoint, the credit applies and the second pays the serial.
    const payers = await createUsers(t().app, 20);
    const answers = await Promise.all(
      payers.map(async (payer) => {
        const o = await c.order(app, payer, dev, '1.00');
        const [first, , second] = await Promise.all([
          c.transfer(app, o.code, o.serial_id),
          c.credit(payer, '1.00'),
          c.transfer(app, o.code, o.serial_id),
        ]);
        return [first.body.code, second.body.code].sort().join(' ');
      }),
    );
    for (const pair of answers) assert.ok(['-2016 1', '-7048 -7048'].includes(pair), JSON.stringify(answers));
    await c.assertLedgerClean();
  });

  it('the ledger is clean after everything', async () => {
    await c.assertLedgerClean();
  });
});

await describeStoresOnFakeClock(
  'authorized payment: PAYMENT_TOKEN_TTL_S',
  (t, clock) => {
    const c = client(t);
    let dev: TestUser;
    let user: TestUser;
    let app: Creds;

    it('sets up', async () => {
      [dev, user] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
      app = await createApp(t().app, dev.user_id);
      await c.credit(user, '5');
    });

    it('bounds the one-time token', async () => {
      const inTime = await c.order(app, user, dev, '1');
      const late = await c.order(app, user, dev, '1');
      clock.advance(1999);
      assert.deepEqual((await c.transfer(app, inTime.code, inTime.serial_id)).body, paid(inTime));
      clock.advance(1);
      assertResult(await c.transfer(app, late.code, late.serial_id), '-2006');
      assert.equal(await c.balance(user), '4');
      await c.assertLedgerClean();
    });
  },
  { env: { PAYMENT_TOKEN_TTL_S: '2' } },
);
