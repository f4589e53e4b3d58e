import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.js';

/** Claims the event id for this batch; false when a row for it already exists. */
export async function claimEvent(tx: Kysely<DB>, eventId: string, type: string, now: number): Promise<boolean> {
  const r = await tx
    .insertInto('processed_events')
    .values({ event_id: eventId, type, status: 'applied', reason: null, processed_at: now })
    .onConflict((oc) => oc.column('event_id').doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
}

export const eventStatus = async (tx: Kysely<DB>, eventId: string) =>
  (await tx.selectFrom('processed_events').select('status').where('event_id', '=', eventId).executeTakeFirst())?.status;

export async function recordOutcome(
  tx: Kysely<DB>,
  eventId: string,
  reason: string | null,
  now: number,
): Promise<void> {
  await tx
    .updateTable('processed_events')
    .set({ status: reason === null ? 'applied' : 'refused', reason, processed_at: now })
    .where('event_id', '=', eventId)
    .execute();
}
