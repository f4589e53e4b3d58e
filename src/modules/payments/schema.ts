// The transfer's request and answer (seed-api.md "Authorized payment", "Transfer result").
import { Type, type Static } from 'typebox';
import { Errors } from '../../errors.js';
import { Amount, Id } from '../../lib/schemas.js';

const Text = Type.String({ minLength: 1, maxLength: 512 });
const EXPECTED = 'Optional: when given and the order says otherwise, the answer is -2006 and nothing moves. The';

export const TransferQuery = Type.Object({ app_id: Text, app_secret: Text });

export const TransferBody = Type.Object(
  {
    access_token: Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'The one-time token (`code`) the authorize page redirected with',
    }),
    serial_id: Text,
    // A user could edit the authorize page's address before confirming (a smaller amount, say):
    // the app states what it asked for, and the transfer goes ahead only for that order.
    amount: Type.Optional({ ...Amount, description: `${EXPECTED} amount, as the authorize request gave it` }),
    pay_type: Type.Optional(
      Type.Union([Type.Literal('send'), Type.Literal('receive')], { description: `${EXPECTED} pay_type` }),
    ),
    payer_user_id: Type.Optional({ ...Id, description: `${EXPECTED} payer` }),
    receiver_user_id: Type.Optional({ ...Id, description: `${EXPECTED} receiver` }),
  },
  { additionalProperties: false },
);
export type TransferBody = Static<typeof TransferBody>;

/** What a transfer can answer besides success, in the registry's words. */
const FAILURES = [
  Errors.paymentAppInvalid,
  Errors.paymentTokenMismatch,
  Errors.paymentTokenExpired,
  Errors.paymentOrderMismatch,
  Errors.transferRepeated,
  Errors.balanceInsufficient,
];

const PAID = 'On success: what moved, as the user confirmed it on the authorize page (the redirect carried the same):';

/** Success and the payment errors alike answer HTTP 200 in this shape (decisions.md section 5). */
export const TransferResult = Type.Object({
  code: Type.String({
    description: `"1" on success; otherwise ${FAILURES.map((d) => `${d.paymentCode} (${d.message})`).join(', ')}`,
    examples: ['1'],
  }),
  msg: Type.String({ examples: ['success'] }),
  source: Type.String({ description: 'The origin marker' }),
  amount: Type.Optional(Type.String({ description: `${PAID} the amount, exact decimal text`, examples: ['12.5'] })),
  pay_type: Type.Optional(
    Type.Union([Type.Literal('send'), Type.Literal('receive')], { description: `${PAID} pay_type` }),
  ),
  payer_user_id: Type.Optional(Type.String({ description: `${PAID} the payer` })),
  receiver_user_id: Type.Optional(Type.String({ description: `${PAID} the receiver` })),
});
export type TransferResult = Static<typeof TransferResult>;
