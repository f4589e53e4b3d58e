import type { Kysely } from 'kysely';
import { bump, lockRow, type Deltas } from '../../db/counters.js';
import { insertNew, insertRow } from '../../db/rows.js';
import type { DB } from '../../db/types.js';

export const voteGroup = async (tx: Kysely<DB>, voteId: string) =>
  (await tx.selectFrom('votes').select('group_id').where('vote_id', '=', voteId).executeTakeFirst())?.group_id;

export const createVote = (tx: Kysely<DB>, voteId: string, groupId: string) =>
  insertRow(tx, 'votes', { vote_id: voteId, group_id: groupId });

/** Records a user's vote; false when the user already voted in this vote. */
export const castVote = (tx: Kysely<DB>, voteId: string, userId: string, now: number) =>
  insertNew(tx, 'vote_casts', { vote_id: voteId, user_id: userId, created_at: now }, ['vote_id', 'user_id']);

export const findDraw = (tx: Kysely<DB>, drawId: string) =>
  tx
    .selectFrom('lucky_draws')
    .select(['draw_id', 'group_id', 'initiator_id'])
    .where('draw_id', '=', drawId)
    .executeTakeFirst();

export const createDraw = (
  tx: Kysely<DB>,
  d: { draw_id: string; group_id: string; initiator_id: string },
  now: number,
) => insertRow(tx, 'lucky_draws', { ...d, created_at: now });

export const findEntry = (tx: Kysely<DB>, drawId: string, userId: string) =>
  tx
    .selectFrom('lucky_draw_entries')
    .select('won')
    .where('draw_id', '=', drawId)
    .where('user_id', '=', userId)
    .executeTakeFirst();

export const addEntry = (tx: Kysely<DB>, drawId: string, userId: string, now: number) =>
  insertRow(tx, 'lucky_draw_entries', { draw_id: drawId, user_id: userId, won: 0, created_at: now });

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

export const createBox = (
  tx: Kysely<DB>,
  b: { box_id: string; sender_id: string; group_id: string | null; amount_cents: number; count: number },
  now: number,
) => insertRow(tx, 'lucky_boxes', { ...b, created_at: now });

/** Records a claim; false when the user already claimed from this box. */
export const addClaim = (tx: Kysely<DB>, boxId: string, userId: string, cents: number, now: number) =>
  insertNew(tx, 'lucky_box_claims', { box_id: boxId, user_id: userId, amount_cents: cents, created_at: now }, [
    'box_id',
    'user_id',
  ]);

export const bumpBox = (tx: Kysely<DB>, boxId: string, deltas: Deltas<'lucky_boxes'>) =>
  bump(tx, 'lucky_boxes', 'box_id', boxId, deltas);
