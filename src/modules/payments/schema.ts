// The transfer's request and answer (seed-api.md "Authorized payment", "Transfer result").
import { Type, type Static } from 'typebox';
import { Errors } from '../../errors.js';

const Text = Type.String({ minLength: 1, maxLength: 512 });

export const TransferQuery = Type.Object({ app_id: Text, app_secret: Text });

export const TransferBody = Type.Object(
  {
    access_token: Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'The one-time token (`code`) the authorize page redirected with',
    }),
    serial_id: Text,
  },
  { additionalProperties: false },
);

/** What a transfer can answer besides success, in the registry's words. */
const FAILURES = [
  Errors.paymentAppInvalid,
  Errors.paymentTokenMismatch,
  Errors.paymentTokenExpired,
  Errors.transferRepeated,
  Errors.balanceInsufficient,
];

/** Success and the payment errors alike answer HTTP 200 in this shape (decisions.md section 5). */
export const TransferResult = Type.Object({
  code: Type.String({
    description: `"1" on success; otherwise ${FAILURES.map((d) => `${d.paymentCode} (${d.message})`).join(', ')}`,
    examples: ['1'],
  }),
  msg: Type.String({ examples: ['success'] }),
  source: Type.String({ description: 'The origin marker' }),
});
export type TransferResult = Static<typeof TransferResult>;
