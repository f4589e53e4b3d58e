// The SQL of payment_orders: an order per authorized payment, claimed once by its transfer.
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DB, PaymentOrdersTable } from '../../db/types.js';

export type PaymentOrder = Selectable<PaymentOrdersTable>;

export async function insertOrder(tx: Kysely<DB>, order: Insertable<PaymentOrdersTable>): Promise<void> {
  await tx.insertInto('payment_orders').values(order).execute();
}

export const findOrder = (db: Kysely<DB>, serialId: string): Promise<PaymentOrder | undefined> =>
  db.selectFrom('payment_orders').selectAll().where('serial_id', '=', serialId).executeTakeFirst();

/**
 * Moves an authorized order to `status` (completed or failed) with its result code; false when it
 * was no longer authorized. Of two racing transfers of one serial, only one claims it.
 */
export async function settleOrder(
  tx: Kysely<DB>,
  serialId: string,
  status: 'completed' | 'failed',
  resultCode: string,
  now: number,
): Promise<boolean> {
  const settled = await tx
    .updateTable('payment_orders')
    .set({ status, result_code: resultCode, completed_at: now })
    .where('serial_id', '=', serialId)
    .where('status', '=', 'authorized')
    .executeTakeFirst();
  return Number(settled.numUpdatedRows) > 0;
}
