// A double-entry ledger in integer hundredths. Every transaction's entries sum to zero; the
// issuance account is the only one allowed below zero (it is where credited points come from).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB, LedgerTransactionsTable } from '../../db/types.js';
import { newId } from '../../lib/ids.js';

export const ISSUANCE_ACCOUNT = 'issuance';
export const userAccount = (userId: string): string => `user:${userId}`;

async function ensureAccount(tx: Kysely<DB>, accountId: string, userId: string | null, now: number): Promise<void> {
  await tx
    .insertInto('ledger_accounts')
    .values({ account_id: accountId, kind: userId === null ? 'issuance' : 'user', user_id: userId, updated_at: now })
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
}

export interface Posting {
  kind: LedgerTransactionsTable['kind'];
  reference: string;
  /** Source and destination of `cents`. */
  from: { account: string; userId: string | null };
  to: { account: string; userId: string | null };
  cents: number;
}

/**
 * Moves `cents` in one balanced transaction. Returns false (and changes nothing) when a user
 * account lacks the funds: the guarded decrement makes that check atomic under concurrency.
 */
export async function post(tx: Kysely<DB>, p: Posting, now: number): Promise<boolean> {
  if (!Number.isSafeInteger(p.cents) || p.cents <= 0) throw new Error('ledger amounts are positive whole hundredths');
  // A user account that does not exist holds nothing: the guarded debit below refuses it, so only
  // the issuance account (which may go negative) and the destination need creating.
  if (p.from.userId === null) await ensureAccount(tx, p.from.account, null, now);
  await ensureAccount(tx, p.to.account, p.to.userId, now);
  // Bound as bigint: better-sqlite3 binds a number as a double, which turns the arithmetic on a
  // balance past 2^53 hundredths into floating point and loses a cent.
  const cents = BigInt(p.cents);
  const debit = await tx
    .updateTable('ledger_accounts')
    .set({ balance_cents: sql`balance_cents - ${cents}`, updated_at: now })
    .where('account_id', '=', p.from.account)
    .where(sql<boolean>`(kind = 'issuance' or balance_cents >= ${cents})`)
    .executeTakeFirst();
  if (Number(debit.numUpdatedRows) === 0) return false;
  await tx
    .updateTable('ledger_accounts')
    .set({ balance_cents: sql`balance_cents + ${cents}`, updated_at: now })
    .where('account_id', '=', p.to.account)
    .execute();
  const txnId = newId('txn');
  await tx
    .insertInto('ledger_transactions')
    .values({ txn_id: txnId, kind: p.kind, reference: p.reference, created_at: now })
    .execute();
  await tx
    .insertInto('ledger_entries')
    .values([
      { txn_id: txnId, account_id: p.from.account, amount_cents: -p.cents, created_at: now },
      { txn_id: txnId, account_id: p.to.account, amount_cents: p.cents, created_at: now },
    ])
    .execute();
  return true;
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
