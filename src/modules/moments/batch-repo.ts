// Set-based SQL for runs of moment events (see events/rows.ts): each statement takes all of a
// run's rows as one JSON parameter.
import { type BatchContext, json, run, statement } from '../events/index.js';

const authorsOf = statement(
  (rows) => `SELECT moment_id, author_id FROM moments
    WHERE moment_id IN (SELECT r.id FROM ${rows({ id: 'text' })} AS r)`,
);

/** The author of each of `momentIds` that exists. */
export async function momentAuthors(ctx: BatchContext, momentIds: Iterable<string>): Promise<Map<string, string>> {
  const rows = await run<{ moment_id: string; author_id: string }>(ctx, authorsOf, [
    json([...momentIds].map((id) => [id])),
  ]);
  return new Map(rows.map((r) => [r.moment_id, r.author_id]));
}

const insertMoments = statement(
  (rows) => `INSERT INTO moments (moment_id, author_id, created_at)
    SELECT r.id, r.author, ? FROM ${rows({ id: 'text', author: 'text' })} AS r ORDER BY r.ord`,
);

export async function createMoments(ctx: BatchContext, moments: readonly (readonly [string, string])[]): Promise<void> {
  if (moments.length > 0) await run(ctx, insertMoments, [ctx.now, json(moments)]);
}

export type Like = readonly [momentId: string, userId: string];

const likesAmong = statement(
  (rows) => `SELECT moment_id, user_id FROM moment_likes WHERE (moment_id, user_id) IN
    (SELECT r.m, r.u FROM ${rows({ m: 'text', u: 'text' })} AS r)`,
);

/** Which of `likes` exist, as `moment\0user`. */
export async function existingLikes(ctx: BatchContext, likes: readonly Like[]): Promise<Set<string>> {
  const rows = await run<{ moment_id: string; user_id: string }>(ctx, likesAmong, [json(likes)]);
  return new Set(rows.map((r) => `${r.moment_id}\u0000${r.user_id}`));
}

const insertLikes = statement(
  (rows) => `INSERT INTO moment_likes (moment_id, user_id, created_at)
    SELECT r.m, r.u, ? FROM ${rows({ m: 'text', u: 'text' })} AS r ORDER BY r.ord`,
);
const deleteLikes = statement(
  (rows) => `DELETE FROM moment_likes WHERE (moment_id, user_id) IN
    (SELECT r.m, r.u FROM ${rows({ m: 'text', u: 'text' })} AS r)`,
);
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
  if (added.length > 0) await run(ctx, insertLikes, [ctx.now, json(added)]);
  if (removed.length > 0) await run(ctx, deleteLikes, [json(removed)]);
  if (counts.size > 0) await run(ctx, bumpLikeCounts, [json([...counts])]);
}
