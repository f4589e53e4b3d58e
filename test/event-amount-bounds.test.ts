// Events that add an amount the operator chooses stop at what the sum can hold exactly: the
// ledger's int64 balances (the issuance account holds minus everything credited) and the lucky box
// cents counters, read back as JS numbers (2^53 - 1). The event that would pass is refused
// `amount_too_large` and changes nothing; the rest of its batch applies (no 500, no REAL).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { ledgerFailures } from '../src/cli/commands/ledger-check.js';
import { checkLedger } from '../src/modules/points/repo.js';
import { adminHeaders, describeStores } from './helpers/app.js';
import { applyEvents, createUsers, postEvents, uid, type Ev, type TestUser } from './helpers/factories.js';

const MAX_AMOUNT = '9999999999999.99'; // 999,999,999,999,999 hundredths, the most one event carries
const INT64_MAX = 9_223_372_036_854_775_807n;
// 9,223 of the largest credits and this make INT64_MAX hundredths exactly.
const CREDIT_REST = '3720368547850.30';
// 9 of the largest boxes and this make 2^53 - 1 hundredths exactly.
const BOX_REST = '71992547410';
const SAFE_MAX = String(Number.MAX_SAFE_INTEGER);

await describeStores('event amounts stop at what their sums hold exactly', (t) => {
  const refusedOnly = async (events: Ev[], id: string) => {
    const r = await postEvents(t().app, events);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, {
      applied: events.length - 1,
      duplicates: 0,
      refused: [{ id, reason: 'amount_too_large' }],
    });
  };
  /** A counter as exact decimal text (a driver would give a number, or fail on a REAL). */
  const counter = async (table: 'user_stats' | 'groups', key: string, column: string): Promise<string> => {
    const keyColumn = table === 'user_stats' ? 'user_id' : 'group_id';
    const row = await sql<{ v: string }>`select cast(${sql.ref(column)} as text) as v from ${sql.table(table)}
      where ${sql.ref(keyColumn)} = ${key}`.execute(t().services.db.k);
    return row.rows[0]?.v ?? 'no row';
  };
  const box = (sender: TestUser, amount: string, groupId?: string): Ev => ({
    type: 'lucky_box.sent',
    data: {
      box_id: uid('b'),
      sender_id: sender.user_id,
      amount,
      count: 2,
      ...(groupId === undefined ? {} : { group_id: groupId }),
    },
  });

  it('credits apply up to int64 hundredths in total; the one past it is refused and the batch goes on', async () => {
    const [rich, later] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
    const credit = (amount: string): Ev => ({ type: 'points.credited', data: { user_id: rich.user_id, amount } });
    for (let batch = 0; batch < 9; batch++)
      await applyEvents(
        t().app,
        Array.from({ length: 1000 }, () => credit(MAX_AMOUNT)),
      );
    await applyEvents(t().app, [...Array.from({ length: 223 }, () => credit(MAX_AMOUNT)), credit(CREDIT_REST)]);
    const over = uid('evt');
    await refusedOnly(
      [
        { id: over, type: 'points.credited', data: { user_id: later.user_id, amount: '0.01' } },
        { type: 'user.upserted', data: { ...later, name: 'still applied' } },
      ],
      over,
    );
    const res = await t().app.inject({
      method: 'GET',
      url: `/internal/v1/users/${rich.user_id}/balance`,
      headers: adminHeaders,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json<{ balance: string }>().balance, '92233720368547758.07');
    const check = await checkLedger(t().services.db.k);
    assert.equal(check.creditedCents, INT64_MAX);
    assert.equal(check.userBalancesCents, INT64_MAX);
    assert.deepEqual(ledgerFailures(check), []);
    // The refused credit created no account for its user.
    const accounts = await t()
      .services.db.k.selectFrom('ledger_accounts')
      .select('account_id')
      .where('user_id', '=', later.user_id)
      .execute();
    assert.deepEqual(accounts, []);
    const name = await t()
      .services.db.k.selectFrom('users')
      .select('name')
      .where('user_id', '=', later.user_id)
      .execute();
    assert.deepEqual(name, [{ name: 'still applied' }]);
  });

  it('boxes sent count up to 2^53 - 1 hundredths per sender and per group; past it they are refused', async () => {
    const [sender, other] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
    const groupId = uid('g');
    await applyEvents(t().app, [
      {
        type: 'group.upserted',
        data: { group_id: groupId, name: 'boxes', invite_url: `https://g.example/${groupId}` },
      },
      ...Array.from({ length: 9 }, () => box(sender, MAX_AMOUNT, groupId)),
      box(sender, BOX_REST, groupId),
    ]);
    assert.equal(await counter('user_stats', sender.user_id, 'boxes_sent_cents'), SAFE_MAX);
    assert.equal(await counter('groups', groupId, 'boxes_sent_cents'), SAFE_MAX);
    // Past the sender's counter (outside any group), then past the group's (a sender with room).
    const bySender = box(sender, '0.01');
    const inGroup = box(other, '0.01', groupId);
    const bySenderId = uid('evt');
    const inGroupId = uid('evt');
    await refusedOnly([{ ...bySender, id: bySenderId }, box(other, '1')], bySenderId);
    await refusedOnly([box(other, '2'), { ...inGroup, id: inGroupId }], inGroupId);
    assert.equal(await counter('user_stats', sender.user_id, 'boxes_sent_cents'), SAFE_MAX);
    assert.equal(await counter('user_stats', sender.user_id, 'boxes_sent'), '10');
    assert.equal(await counter('groups', groupId, 'boxes_sent_cents'), SAFE_MAX);
    assert.equal(await counter('groups', groupId, 'boxes_sent'), '10');
    assert.equal(await counter('user_stats', other.user_id, 'boxes_sent_cents'), '300');
    const refusedBoxes = await t()
      .services.db.k.selectFrom('lucky_boxes')
      .select('box_id')
      .where('box_id', 'in', [String(bySender.data.box_id), String(inGroup.data.box_id)])
      .execute();
    assert.deepEqual(refusedBoxes, []);
    // The seed API shows the sum as a JSON number, exact at 2^53 - 1 hundredths.
    const shown = await t().services.activities.luckyBoxesOfWallet(1, sender.wallet_address);
    assert.equal(shown.send_luckyBox_total, 90071992547409.91);
  });

  it('boxes received count up to 2^53 - 1 hundredths per user; the claim past it is refused', async () => {
    const users = await createUsers(t().app, 13);
    const [taker, other, ...senders] = users as [TestUser, TestUser, ...TestUser[]];
    const sent = senders.map((s, i) => box(s, i < 9 ? MAX_AMOUNT : i === 9 ? BOX_REST : '1'));
    await applyEvents(t().app, sent);
    const claim = (e: Ev, user: TestUser, amount: string): Ev => ({
      type: 'lucky_box.claimed',
      data: { box_id: e.data.box_id, user_id: user.user_id, amount },
    });
    await applyEvents(
      t().app,
      sent.slice(0, 10).map((e, i) => claim(e, taker, i < 9 ? MAX_AMOUNT : BOX_REST)),
    );
    assert.equal(await counter('user_stats', taker.user_id, 'boxes_received_cents'), SAFE_MAX);
    const last = sent[10] as Ev;
    const overId = uid('evt');
    await refusedOnly([{ ...claim(last, taker, '0.01'), id: overId }, claim(last, other, '0.01')], overId);
    assert.equal(await counter('user_stats', taker.user_id, 'boxes_received_cents'), SAFE_MAX);
    assert.equal(await counter('user_stats', taker.user_id, 'boxes_received'), '10');
    assert.equal(await counter('user_stats', other.user_id, 'boxes_received_cents'), '1');
    const claims = await t()
      .services.db.k.selectFrom('lucky_box_claims')
      .select('user_id')
      .where('box_id', '=', String(last.data.box_id))
      .execute();
    assert.deepEqual(claims, [{ user_id: other.user_id }]);
    const shown = await t().services.activities.luckyBoxesOfWallet(1, taker.wallet_address);
    assert.equal(shown.receive_luckyBox_total, 90071992547409.91);
  });
});
