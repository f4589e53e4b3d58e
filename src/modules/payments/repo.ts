// The SQL of payment_orders: an order per authorized payment, claimed once by its transfer.
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Db } from '../../db/connect.js';
import { arg, numArg, prepare, typedArg } from '../../db/prepared.js';
import type { DB, PaymentOrdersTable } from '../../db/types.js';

export type PaymentOrder = Selectable<PaymentOrdersTable>;

export async function insertOrder(tx: Kysely<DB>, order: Insertable<PaymentOrdersTable>): Promise<void> {
  await tx.insertInto('payment_orders').values(order).execute();
}

/** The statements of a transfer, compiled once. */
export function orderStatements(db: Db) {
  const k = db.k;
  return {
    /** Argument: serial id. */
    find: prepare(db, k.selectFrom('payment_orders').selectAll().where('serial_id', '=', arg(0))),
    /**
     * Moves an authorized order to a status (completed or failed) with its result code; no row when
     * it was no longer authorized, so of two racing transfers of one serial only one claims it.
     * Arguments: status, result code, now, serial id.
     */
    settle: prepare(
      db,
      k
        .updateTable('payment_orders')
        .set({ status: typedArg<'completed' | 'failed'>(0), result_code: arg(1), completed_at: numArg(2) })
        .where('serial_id', '=', arg(3))
        .where('status', '=', 'authorized'),
    ),
  };
}
export type OrderStatements = ReturnType<typeof orderStatements>;
