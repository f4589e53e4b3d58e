import type { Kysely } from 'kysely';
import { bump, type Deltas } from '../../db/counters.js';
import { deleteRow, insertNew, insertRow } from '../../db/rows.js';
import type { DB } from '../../db/types.js';

export const findMoment = (tx: Kysely<DB>, momentId: string) =>
  tx
    .selectFrom('moments')
    .select(['moment_id', 'author_id', 'like_count'])
    .where('moment_id', '=', momentId)
    .executeTakeFirst();

export const createMoment = (tx: Kysely<DB>, momentId: string, authorId: string, now: number) =>
  insertRow(tx, 'moments', { moment_id: momentId, author_id: authorId, created_at: now });

/** Records the like; false when the user already liked the moment. */
export const addLike = (tx: Kysely<DB>, momentId: string, userId: string, now: number) =>
  insertNew(tx, 'moment_likes', { moment_id: momentId, user_id: userId, created_at: now }, ['moment_id', 'user_id']);

/** Removes the like; false when there was none. */
export const removeLike = (tx: Kysely<DB>, momentId: string, userId: string) =>
  deleteRow(tx, 'moment_likes', { moment_id: momentId, user_id: userId });

export const bumpMoment = (tx: Kysely<DB>, momentId: string, deltas: Deltas<'moments'>) =>
  bump(tx, 'moments', 'moment_id', momentId, deltas);
