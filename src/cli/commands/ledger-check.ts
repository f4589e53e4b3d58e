import { checkLedger, type LedgerCheck } from '../../modules/points/index.js';
import { exactJson } from '../../lib/exact-json.js';
import { parse, withServices, type Command } from '../io.js';

/** The invariants checkLedger's figures must satisfy; each broken one is named. */
export function ledgerFailures(c: LedgerCheck): string[] {
  const failures: string[] = [];
  if (c.sumOfBalancesCents !== 0n) failures.push(`sum of all balances is ${c.sumOfBalancesCents}, not 0`);
  if (c.userBalancesCents !== c.creditedCents) {
    failures.push(`user balances sum to ${c.userBalancesCents} but ${c.creditedCents} were credited`);
  }
  if (c.negativeUserAccounts > 0) failures.push(`${c.negativeUserAccounts} user account(s) below zero`);
  if (!c.entriesMatchBalances) failures.push('some account balances differ from the sum of their entries');
  if (c.unbalancedTransactions > 0) failures.push(`${c.unbalancedTransactions} transaction(s) do not sum to zero`);
  return failures;
}

/** The figures under the API's snake_case names. */
const snakeCase = (c: LedgerCheck) => ({
  accounts: c.accounts,
  sum_of_balances_cents: c.sumOfBalancesCents,
  credited_cents: c.creditedCents,
  user_balances_cents: c.userBalancesCents,
  negative_user_accounts: c.negativeUserAccounts,
  entries_match_balances: c.entriesMatchBalances,
  unbalanced_transactions: c.unbalancedTransactions,
});

export const ledgerCheckCommand: Command = {
  name: 'ledger-check',
  summary: "verify the points ledger's invariants (exit 1 when one fails)",
  usage: 'ledger-check',
  async run(args, io) {
    parse(this, args, {});
    const check = await withServices(io, (s) => checkLedger(s.db.k));
    const failures = ledgerFailures(check);
    io.stdout.write(`${exactJson({ ok: failures.length === 0, ...snakeCase(check), failures })}\n`);
    return failures.length === 0 ? 0 : 1;
  },
};
