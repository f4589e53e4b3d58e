// A double-entry ledger in integer hundredths. Every transaction's entries sum to zero; the
// issuance account is the only one allowed below zero (it is where credited points come from).
// Balances are int64: the issuance account holds minus everything credited, the most any balance
// can reach, so keeping it at or above -(2^63 - 1) keeps every balance in range.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Db } from '../../db/connect.js';
import { arg, numArg, prepare, typedArg } from '../../db/prepared.js';
import type { DB, LedgerTransactionsTable } from '../../db/types.js';
import { newId } from '../../lib/ids.js';

export const ISSUANCE_ACCOUNT = 'issuance';
export const userAccount = (userId: string): string => `user:${userId}`;

export interface Posting {
  kind: LedgerTransactionsTable['kind'];
  reference: string;
  /** Source and destination of `cents`. */
  from: { account: string; userId: string | null };
  to: { account: string; userId: string | null };
  cents: number;
}

/**
 * Locks the accounts' rows in id order (PostgreSQL; those that exist): transactions that take
 * their accounts so, a posting's two or a batch's many, cannot close a cycle.
 */
const inIdOrder = (q: Kysely<DB>, accounts: string[]) =>
  q
    .selectFrom('ledger_accounts')
    .select('account_id')
    .where('account_id', 'in', accounts)
    .orderBy('account_id')
    .forUpdate();

/** The statements of a posting, compiled once (a transfer runs them all on the hot path). */
function postingStatements(db: Db) {
  const k = db.k;
  // Amounts are bound as bigint: better-sqlite3 binds a number as a double, which turns the
  // arithmetic on a balance past 2^53 hundredths into floating point and loses a cent.
  const cents = typedArg<bigint>(0);
  return {
    /** Arguments: account id, kind, user id (null for issuance), now. */
    ensureAccount: prepare(
      db,
      k
        .insertInto('ledger_accounts')
        .values({ account_id: arg(0), kind: typedArg<'user' | 'issuance'>(1), user_id: arg(2), updated_at: numArg(3) })
        .onConflict((oc) => oc.column('account_id').doNothing()),
    ),
    /**
     * Arguments: cents, now, account id. Refuses (no row) a user account without the funds, and the
     * issuance account when it would pass -(2^63 - 1) (the bound written so nothing overflows).
     */
    debit: prepare(
      db,
      k
        .updateTable('ledger_accounts')
        .set({ balance_cents: sql`balance_cents - ${cents}`, updated_at: numArg(1) })
        .where('account_id', '=', arg(2))
        .where(
          sql<boolean>`(case when kind = 'issuance' then balance_cents >= ${cents} - 9223372036854775807 else balance_cents >= ${cents} end)`,
        ),
    ),
    /**
     * PostgreSQL only (SQLite has one writer and no row locks). Arguments: the two account ids.
     * Each UPDATE holds its row until commit: a send and a receive between the same two users at
     * once took the rows in opposite orders and deadlocked (seen only after deadlock_timeout, 1 s,
     * then retried, often into the next one). Both are taken first, in id order.
     */
    lockPair: db.dialect === 'postgres' ? prepare(db, inIdOrder(k, [arg(0), arg(1)])) : undefined,
    /** Arguments: cents, now, account id. */
    credit: prepare(
      db,
      k
        .updateTable('ledger_accounts')
        .set({ balance_cents: sql`balance_cents + ${cents}`, updated_at: numArg(1) })
        .where('account_id', '=', arg(2)),
    ),
    /** Arguments: txn id, kind, reference, now. */
    transaction: prepare(
      db,
      k.insertInto('ledger_transactions').values({
        txn_id: arg(0),
        kind: typedArg<LedgerTransactionsTable['kind']>(1),
        reference: arg(2),
        created_at: numArg(3),
      }),
    ),
    /** Arguments: txn id, now, from account, -cents, to account, cents. */
    entries: prepare(
      db,
      k.insertInto('ledger_entries').values([
        { txn_id: arg(0), account_id: arg(2), amount_cents: numArg(3), created_at: numArg(1) },
        { txn_id: arg(0), account_id: arg(4), amount_cents: numArg(5), created_at: numArg(1) },
      ]),
    ),
  };
}

/** Writes postings into the double-entry ledger, inside the caller's transaction. */
export class Ledger {
  private readonly q: ReturnType<typeof postingStatements>;

  constructor(db: Db) {
    this.q = postingStatements(db);
  }

  /**
   * Locks the accounts (those that exist) in id order, for a transaction that will post to several
   * (an event batch's credits): its postings then cannot close a cycle with a transfer, which takes
   * its two in the same order. PostgreSQL only; SQLite has one writer. An account created later in
   * the transaction (a first credit) is new to every other transaction, so it cannot close a cycle.
   * Every batch with a credit takes the issuance account first: such batches run one after another.
   */
  async lockAccounts(ctx: { tx: Kysely<DB>; dialect: Db['dialect'] }, accounts: readonly string[]): Promise<void> {
    if (ctx.dialect !== 'postgres' || accounts.length === 0) return;
    await inIdOrder(ctx.tx, [...new Set(accounts)]).execute();
  }

  /**
   * Moves `cents` in one balanced transaction. Returns false (and changes nothing) when a user
   * account lacks the funds, or when the source is the issuance account and the credit would take
   * the total credited past int64: the guarded decrement makes either check atomic under concurrency.
   */
  async post(tx: Kysely<DB>, p: Posting, now: number): Promise<boolean> {
    if (!Number.isSafeInteger(p.cents) || p.cents <= 0) throw new Error('ledger amounts are positive whole hundredths');
    const q = this.q;
    // A user account that does not exist holds nothing: the guarded debit below refuses it, so only
    // the issuance account (which may go negative) and the destination need creating; the
    // destination after the debit, so that a refused posting creates no account.
    if (p.from.userId === null) await q.ensureAccount.run(tx, [p.from.account, 'issuance', null, now]);
    await q.lockPair?.run(tx, [p.from.account, p.to.account]);
    const cents = BigInt(p.cents);
    const debit = await q.debit.run(tx, [cents, now, p.from.account]);
    if (Number(debit.numAffectedRows ?? 0) === 0) return false;
    await q.ensureAccount.run(tx, [p.to.account, p.to.userId === null ? 'issuance' : 'user', p.to.userId, now]);
    await q.credit.run(tx, [cents, now, p.to.account]);
    const txnId = newId('txn');
    await q.transaction.run(tx, [txnId, p.kind, p.reference, now]);
    await q.entries.run(tx, [txnId, now, p.from.account, -p.cents, p.to.account, p.cents]);
    return true;
  }
}

/** An int64 column or sum as exact decimal text on both stores (the drivers would give a number). */
const exact = (expression: RawBuilder<unknown>) => sql<string>`cast(${expression} as text)`;

export const balanceOf = async (tx: Kysely<DB>, userId: string): Promise<bigint> => {
  const row = await tx
    .selectFrom('ledger_accounts')
    .select(exact(sql`balance_cents`).as('balance'))
    .where('account_id', '=', userAccount(userId))
    .executeTakeFirst();
  return BigInt(row?.balance ?? 0);
};

/** Sums are bigint: they may pass 2^53 hundredths. */
export interface LedgerCheck {
  accounts: number;
  sumOfBalancesCents: bigint;
  creditedCents: bigint;
  userBalancesCents: bigint;
  negativeUserAccounts: number;
  entriesMatchBalances: boolean;
  unbalancedTransactions: number;
}

/** Verifies the ledger's invariants (used by `cli ledger-check` and by tests). */
export async function checkLedger(tx: Kysely<DB>): Promise<LedgerCheck> {
  const totals = await tx
    .selectFrom('ledger_accounts')
    .select((eb) => [eb.fn.countAll<number>().as('accounts'), exact(sql`coalesce(sum(balance_cents), 0)`).as('sum')])
    .executeTakeFirstOrThrow();
  const users = await tx
    .selectFrom('ledger_accounts')
    .select((eb) => [
      exact(sql`coalesce(sum(balance_cents), 0)`).as('sum'),
      eb.fn
        .coalesce(eb.fn.sum<number>(sql`case when balance_cents < 0 then 1 else 0 end`), sql<number>`0`)
        .as('negative'),
    ])
    .where('kind', '=', 'user')
    .executeTakeFirstOrThrow();
  const credited = await tx
    .selectFrom('ledger_entries')
    .innerJoin('ledger_transactions', 'ledger_transactions.txn_id', 'ledger_entries.txn_id')
    .select(exact(sql`coalesce(sum(amount_cents), 0)`).as('sum'))
    .where('ledger_transactions.kind', '=', 'credit')
    .where('amount_cents', '>', 0)
    .executeTakeFirstOrThrow();
  const mismatched = await tx
    .selectFrom('ledger_accounts as a')
    .select('a.account_id')
    .where(
      'a.balance_cents',
      '!=',
      sql<number>`coalesce((select sum(e.amount_cents) from ledger_entries e where e.account_id = a.account_id), 0)`,
    )
    .execute();
  const unbalanced = await tx
    .selectFrom('ledger_entries')
    .select('txn_id')
    .groupBy('txn_id')
    .having((eb) => eb.fn.sum('amount_cents'), '!=', 0)
    .execute();
  return {
    accounts: totals.accounts,
    sumOfBalancesCents: BigInt(totals.sum),
    creditedCents: BigInt(credited.sum),
    userBalancesCents: BigInt(users.sum),
    negativeUserAccounts: users.negative,
    entriesMatchBalances: mismatched.length === 0,
    unbalancedTransactions: unbalanced.length,
  };
}
