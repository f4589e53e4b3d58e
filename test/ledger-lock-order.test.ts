// Two postings between the same two accounts in opposite directions at once (a send and a receive)
// deadlocked on PostgreSQL: each UPDATE took its row in the order of the posting, the debit's first.
// PostgreSQL saw it only after deadlock_timeout (1 s) and aborted one, which was retried, often
// into the next; under load transfers took up to a minute and some answered 500. A posting now
// takes both rows first, in account id order. Shown here without a race: while a third transaction
// holds the lower row, a posting from the higher account must wait holding nothing. An event
// batch's credits (several postings in one transaction) take their accounts first the same way.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { checkLedger, Ledger, userAccount } from '../src/modules/points/index.js';
import { describePostgres } from './helpers/app.js';
import { applyEvents, createUsers, type TestUser } from './helpers/factories.js';
import { blockedBy, holdTransaction, tracked, type HeldTransaction } from './helpers/pg-locks.js';

await describePostgres('ledger postings lock both accounts in one order', (t) => {
  /** Two credited users, the one whose account id sorts first as `low`. */
  const twoUsers = async () => {
    const users = (await createUsers(t().app, 2)) as [TestUser, TestUser];
    await applyEvents(
      t().app,
      users.map((u) => ({ type: 'points.credited', data: { user_id: u.user_id, amount: '10' } })),
    );
    const [low, high] = [...users].sort((a, b) => (userAccount(a.user_id) < userAccount(b.user_id) ? -1 : 1)) as [
      TestUser,
      TestUser,
    ];
    return { low, high };
  };
  /** Holds `user`'s account row in a transaction of its own. */
  const holdAccount = (user: TestUser) =>
    holdTransaction(t().services.db.k, async (tx) => {
      await sql`select account_id from ledger_accounts where account_id = ${userAccount(user.user_id)} for update`.execute(
        tx,
      );
    });
  /** Whether `user`'s account row can be locked at once. */
  const accountFree = (user: TestUser) =>
    t()
      .services.db.k.transaction()
      .execute(async (tx) => {
        try {
          await sql`select account_id from ledger_accounts where account_id = ${userAccount(user.user_id)} for update nowait`.execute(
            tx,
          );
          return true;
        } catch (e) {
          if (e instanceof Error && 'code' in e && e.code === '55P03') return false;
          throw e;
        }
      });
  const ledgerClean = async () => {
    const check = await checkLedger(t().services.db.k);
    assert.deepEqual(
      [check.unbalancedTransactions, check.negativeUserAccounts, check.entriesMatchBalances],
      [0, 0, true],
    );
  };

  it('a posting waiting for one of its accounts holds neither', { timeout: 30_000 }, async () => {
    const s = t().services;
    const { low, high } = await twoUsers();
    const account = (u: TestUser) => ({ account: userAccount(u.user_id), userId: u.user_id });
    const ledger = new Ledger(s.db);
    let holder: HeldTransaction | undefined;
    try {
      holder = await holdAccount(low);
      // From the higher account to the lower: its debit came first and took the higher row.
      const posting = tracked(
        s.db.k
          .transaction()
          .execute((tx) =>
            ledger.post(
              tx,
              { kind: 'transfer', reference: 'r1', from: account(high), to: account(low), cents: 100 },
              1,
            ),
          ),
      );
      assert.equal(await blockedBy(s.db.k, holder.pid, posting.settled), true, 'the posting waits for the lower row');
      // The opposite posting's first lock: free, so it could not close a cycle.
      assert.equal(await accountFree(high), true, 'the waiting posting holds the higher row');
      await holder.end();
      assert.equal(await posting.promise, true);
      await ledgerClean();
    } finally {
      await holder?.end();
    }
  });

  // Both ways of applying a batch: set-based (what ingest runs) and one event at a time (the reference).
  for (const mode of ['set-based', 'one-by-one'] as const) {
    it(
      `an event batch crediting several users takes their accounts in id order too (${mode})`,
      { timeout: 30_000 },
      async () => {
        const s = t().services;
        const { low, high } = await twoUsers();
        let holder: HeldTransaction | undefined;
        try {
          holder = await holdAccount(low);
          // The higher account's credit first: applied in the batch's order, it took the higher row.
          const batch = tracked(
            s.events.apply(
              [high, low].map((u, i) => ({
                id: `lock-order-${mode}-${u.user_id}-${i}`,
                type: 'points.credited',
                data: { user_id: u.user_id, amount: '1' },
              })),
              mode,
            ),
          );
          assert.equal(await blockedBy(s.db.k, holder.pid, batch.settled), true, 'the batch waits for the lower row');
          assert.equal(await accountFree(high), true, 'the waiting batch holds the higher row');
          await holder.end();
          assert.deepEqual((await batch.promise).result, { applied: 2, duplicates: 0, refused: [] });
          await ledgerClean();
        } finally {
          await holder?.end();
        }
      },
    );
  }
});
