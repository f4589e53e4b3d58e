import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { toCents } from '../../lib/money.js';
import { Amount, Id } from '../../lib/schemas.js';
import { defineEvent, type EventHandler } from '../events/index.js';
import { usersExist } from '../users/index.js';
import { ISSUANCE_ACCOUNT, userAccount, type Ledger } from './repo.js';

const Credited = Type.Object({ user_id: Id, amount: Amount });
const isCredited = Compile(Credited);

const credited = (ledger: Ledger) =>
  defineEvent('points.credited', Credited, async ({ tx, now, eventId }, d) => {
    const cents = toCents(d.amount);
    if (cents === undefined || cents <= 0) return 'invalid_amount';
    if (!(await usersExist(tx, [d.user_id]))) return 'unknown_user';
    // The only refusal of a posting from the issuance account: the total credited would pass int64.
    const posted = await ledger.post(
      tx,
      {
        kind: 'credit',
        reference: eventId,
        from: { account: ISSUANCE_ACCOUNT, userId: null },
        to: { account: userAccount(d.user_id), userId: d.user_id },
        cents,
      },
      now,
    );
    return posted ? undefined : 'amount_too_large';
  });

export const pointEvents = (ledger: Ledger): EventHandler[] => [
  {
    ...credited(ledger),
    // A batch's credits locked the issuance account and each user's in the batch's order: with a
    // transfer between two of those users at once, a deadlock (seen after 1 s, then retried).
    lockFirst: (ctx, events) =>
      ledger.lockAccounts(ctx, [
        ISSUANCE_ACCOUNT,
        ...events.flatMap(({ data }) => (isCredited.Check(data) ? [userAccount(data.user_id)] : [])),
      ]),
  },
];
