// Set-based SQL for runs of moment events (see events/rows.ts): each statement takes all of a
// run's rows as one JSON parameter.
import { type BatchContext, json, jsonList, run, statement } from '../events/index.js';
import { pairTable, type Pair } from '../users/index.js';

const authorsOf = statement(
  (_, list) => `SELECT moment_id, author_id FROM moments
    WHERE moment_id IN (SELECT r.id FROM ${list('id')} AS r)`,
);

/** The author of each of `momentIds` that exists. */
export async function momentAuthors(ctx: BatchContext, momentIds: Iterable<string>): Promise<Map<string, string>> {
  const rows = await run<{ moment_id: string; author_id: string }>(ctx, authorsOf, [jsonList(momentIds)]);
  return new Map(rows.map((r) => [r.moment_id, r.author_id]));
}

const insertMoments = statement(
  (rows) => `INSERT INTO moments (moment_id, author_id, created_at)
    SELECT r.id, r.author, ? FROM ${rows({ id: 'text', author: 'text' })} AS r ORDER BY r.ord`,
);

export async function createMoments(ctx: BatchContext, moments: readonly (readonly [string, string])[]): Promise<void> {
  if (moments.length > 0) await run(ctx, insertMoments, [ctx.now, json(moments)]);
}

export type Like = Pair;

const likes = pairTable('moment_likes', ['moment_id', 'user_id'], [1]);

/** Which of `likes` exist, by pairKey(moment, user). */
export const existingLikes = likes.existing;

const bumpLikeCounts = statement(
  (rows) => `UPDATE moments SET like_count = moments.like_count + r.d
    FROM ${rows({ id: 'text', d: 'int' })} AS r WHERE moments.moment_id = r.id`,
);

/** Inserts the new likes in order (their seq follows it), removes the others, adds the summed counts. */
export async function writeLikes(
  ctx: BatchContext,
  added: readonly Like[],
  removed: readonly Like[],
  counts: ReadonlyMap<string, number>,
): Promise<void> {
  await likes.write(ctx, added, removed);
  if (counts.size > 0) await run(ctx, bumpLikeCounts, [json([...counts])]);
}
