import { Type } from 'typebox';
import { toCents } from '../../lib/money.js';
import { Amount, Id } from '../../lib/schemas.js';
import { defineEvent } from '../events/index.js';
import { usersExist } from '../users/index.js';
import { ISSUANCE_ACCOUNT, userAccount, type Ledger } from './repo.js';

export const pointEvents = (ledger: Ledger) => [
  defineEvent('points.credited', Type.Object({ user_id: Id, amount: Amount }), async ({ tx, now, eventId }, d) => {
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
  }),
];
