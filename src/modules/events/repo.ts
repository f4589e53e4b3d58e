import { CompiledQuery, type Kysely } from 'kysely';
import type { DB } from '../../db/types.js';
import type { BatchContext } from './define.js';
import { json, jsonList, run, statement } from './rows.js';

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

// Set-based forms of the above for a whole batch (see rows.ts).

const claimAll = statement(
  (rows) => `INSERT INTO processed_events (event_id, type, status, reason, processed_at)
    SELECT r.id, r.type, 'applied', NULL, ? FROM ${rows({ id: 'text', type: 'text' })} AS r WHERE true
    ON CONFLICT (event_id) DO NOTHING`,
);
/** PostgreSQL names the ids it claimed; concurrent batches may claim some of the same ids. */
const claimAllNaming = `${claimAll.postgres} RETURNING event_id`;
/** SQLite's single writer: the rows it just inserted are the last ones by rowid. */
const lastClaimed = `SELECT event_id FROM processed_events ORDER BY rowid DESC LIMIT ?`;

/** Claims every id of the batch at once (an id given twice, once); answers the ids claimed now. */
export async function claimEvents(
  ctx: BatchContext,
  events: readonly { id: string; type: string }[],
): Promise<Set<string>> {
  const params = [ctx.now, json(events.map((e) => [e.id, e.type]))];
  const query = <R>(text: string, values: readonly unknown[]) =>
    ctx.tx.executeQuery<R>(CompiledQuery.raw(text, [...values]));
  if (ctx.dialect === 'postgres') {
    return new Set((await query<{ event_id: string }>(claimAllNaming, params)).rows.map((r) => r.event_id));
  }
  const ids = new Set(events.map((e) => e.id));
  const claimed = Number((await query(claimAll.sqlite, params)).numAffectedRows ?? 0);
  // Usually every id is new: then the ids need not come back from the store.
  if (claimed === ids.size) return ids;
  return new Set((await query<{ event_id: string }>(lastClaimed, [claimed])).rows.map((r) => r.event_id));
}

const statusesOf = statement(
  (_, list) => `SELECT event_id, status FROM processed_events
    WHERE event_id IN (SELECT r.id FROM ${list('id')} AS r)`,
);

export async function eventStatuses(ctx: BatchContext, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await run<{ event_id: string; status: string }>(ctx, statusesOf, [jsonList(ids)]);
  return new Map(rows.map((r) => [r.event_id, r.status]));
}

const recordAll = statement(
  (rows) => `UPDATE processed_events SET status = r.status, reason = r.reason, processed_at = ?
    FROM ${rows({ id: 'text', status: 'text', reason: 'text' })} AS r WHERE processed_events.event_id = r.id`,
);

/** Records the outcome of each id (null: applied); one row per id. */
export async function recordOutcomes(ctx: BatchContext, outcomes: ReadonlyMap<string, string | null>): Promise<void> {
  if (outcomes.size === 0) return;
  const rows = [...outcomes].map(([id, reason]) => [id, reason === null ? 'applied' : 'refused', reason]);
  await run(ctx, recordAll, [ctx.now, json(rows)]);
}
