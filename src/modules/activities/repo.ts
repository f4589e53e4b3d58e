import type { Kysely } from 'kysely';
import { bump, lockRow, type Deltas } from '../../db/counters.js';
import type { DB } from '../../db/types.js';

const inserted = (r: { numInsertedOrUpdatedRows?: bigint }) => Number(r.numInsertedOrUpdatedRows ?? 0) > 0;

export const voteGroup = async (tx: Kysely<DB>, voteId: string) =>
  (await tx.selectFrom('votes').select('group_id').where('vote_id', '=', voteId).executeTakeFirst())?.group_id;

export async function createVote(tx: Kysely<DB>, voteId: string, groupId: string): Promise<void> {
  await tx.insertInto('votes').values({ vote_id: voteId, group_id: groupId }).execute();
}

/** Records a user's vote; false when the user already voted in this vote. */
export async function castVote(tx: Kysely<DB>, voteId: string, userId: string, now: number): Promise<boolean> {
  return inserted(
    await tx
      .insertInto('vote_casts')
      .values({ vote_id: voteId, user_id: userId, created_at: now })
      .onConflict((oc) => oc.columns(['vote_id', 'user_id']).doNothing())
      .executeTakeFirst(),
  );
}

export const findDraw = (tx: Kysely<DB>, drawId: string) =>
  tx
    .selectFrom('lucky_draws')
    .select(['draw_id', 'group_id', 'initiator_id'])
    .where('draw_id', '=', drawId)
    .executeTakeFirst();

export async function createDraw(
  tx: Kysely<DB>,
  d: { draw_id: string; group_id: string; initiator_id: string },
  now: number,
): Promise<void> {
  await tx
    .insertInto('lucky_draws')
    .values({ ...d, created_at: now })
    .execute();
}

export const findEntry = (tx: Kysely<DB>, drawId: string, userId: string) =>
  tx
    .selectFrom('lucky_draw_entries')
    .select('won')
    .where('draw_id', '=', drawId)
    .where('user_id', '=', userId)
    .executeTakeFirst();

export async function addEntry(tx: Kysely<DB>, drawId: string, userId: string, now: number): Promise<void> {
  await tx
    .insertInto('lucky_draw_entries')
    .values({ draw_id: drawId, user_id: userId, won: 0, created_at: now })
    .execute();
}

export async function markWon(tx: Kysely<DB>, drawId: string, userId: string): Promise<void> {
  await tx
    .updateTable('lucky_draw_entries')
    .set({ won: 1 })
    .where('draw_id', '=', drawId)
    .where('user_id', '=', userId)
    .execute();
}

/** Locks the box's row for the rest of the transaction (claim limit checks). */
export const lockBox = (tx: Kysely<DB>, boxId: string) => lockRow(tx, 'lucky_boxes', 'box_id', boxId);

export const findBox = (tx: Kysely<DB>, boxId: string) =>
  tx.selectFrom('lucky_boxes').selectAll().where('box_id', '=', boxId).executeTakeFirst();

export async function createBox(
  tx: Kysely<DB>,
  b: { box_id: string; sender_id: string; group_id: string | null; amount_cents: number; count: number },
  now: number,
): Promise<void> {
  await tx
    .insertInto('lucky_boxes')
    .values({ ...b, created_at: now })
    .execute();
}

/** Records a claim; false when the user already claimed from this box. */
export async function addClaim(tx: Kysely<DB>, boxId: string, userId: string, cents: number, now: number) {
  return inserted(
    await tx
      .insertInto('lucky_box_claims')
      .values({ box_id: boxId, user_id: userId, amount_cents: cents, created_at: now })
      .onConflict((oc) => oc.columns(['box_id', 'user_id']).doNothing())
      .executeTakeFirst(),
  );
}

export const bumpBox = (tx: Kysely<DB>, boxId: string, deltas: Deltas<'lucky_boxes'>) =>
  bump(tx, 'lucky_boxes', 'box_id', boxId, deltas);
