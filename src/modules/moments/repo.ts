import type { Kysely } from 'kysely';
import { bump, type Deltas } from '../../db/counters.js';
import type { DB } from '../../db/types.js';

export const findMoment = (tx: Kysely<DB>, momentId: string) =>
  tx
    .selectFrom('moments')
    .select(['moment_id', 'author_id', 'like_count'])
    .where('moment_id', '=', momentId)
    .executeTakeFirst();

export async function createMoment(tx: Kysely<DB>, momentId: string, authorId: string, now: number): Promise<void> {
  await tx.insertInto('moments').values({ moment_id: momentId, author_id: authorId, created_at: now }).execute();
}

/** Records the like; false when the user already liked the moment. */
export async function addLike(tx: Kysely<DB>, momentId: string, userId: string, now: number): Promise<boolean> {
  const r = await tx
    .insertInto('moment_likes')
    .values({ moment_id: momentId, user_id: userId, created_at: now })
    .onConflict((oc) => oc.columns(['moment_id', 'user_id']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Removes the like; false when there was none. */
export async function removeLike(tx: Kysely<DB>, momentId: string, userId: string): Promise<boolean> {
  const r = await tx
    .deleteFrom('moment_likes')
    .where('moment_id', '=', momentId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export const bumpMoment = (tx: Kysely<DB>, momentId: string, deltas: Deltas<'moments'>) =>
  bump(tx, 'moments', 'moment_id', momentId, deltas);
