// Runs of moment events applied together: what a run names is read once, the events are played in
// order in memory (refusals and all), then the rows and summed counter deltas are written in one
// statement each.
import { addTo, type BatchContext, type Outcome } from '../events/index.js';
import { bumpUsersStats, knownUsers, pairKey, socialDeltas } from '../users/index.js';
import { createMoments, existingLikes, momentAuthors, writeLikes, type Like } from './batch-repo.js';

export interface MomentCreated {
  moment_id: string;
  author_id: string;
}

/** What a run names: the authors of its moments that exist, and which of its users are known. */
async function named<E extends { moment_id: string }>(
  ctx: BatchContext,
  events: readonly E[],
  userOf: (d: E) => string,
) {
  const authors = await momentAuthors(
    ctx,
    events.map((d) => d.moment_id),
  );
  return { authors, known: await knownUsers(ctx, events.map(userOf)) };
}

export async function createMomentsTogether(ctx: BatchContext, events: readonly MomentCreated[]): Promise<Outcome[]> {
  const { authors, known } = await named(ctx, events, (d) => d.author_id);
  const created: [string, string][] = [];
  const outcomes = events.map((d): Outcome => {
    if (!known.has(d.author_id)) return 'unknown_user';
    const author = authors.get(d.moment_id);
    if (author === undefined) {
      authors.set(d.moment_id, d.author_id);
      created.push([d.moment_id, d.author_id]);
    } else if (author !== d.author_id) return 'moment_exists';
    return undefined;
  });
  await createMoments(ctx, created);
  return outcomes;
}

export interface LikeRef {
  moment_id: string;
  user_id: string;
}

export async function likeTogether(ctx: BatchContext, events: readonly LikeRef[], liked: boolean): Promise<Outcome[]> {
  const { authors, known } = await named(ctx, events, (d) => d.user_id);
  const likes = await existingLikes(
    ctx,
    events.map((d): Like => [d.moment_id, d.user_id]),
    !liked,
  );
  const changed: Like[] = [];
  const counts = new Map<string, number>();
  const received = new Map<string, number>();
  const given = new Map<string, number>();
  const delta = liked ? 1 : -1;
  const outcomes = events.map((d): Outcome => {
    const author = authors.get(d.moment_id);
    if (author === undefined) return 'unknown_moment';
    if (!known.has(d.user_id)) return 'unknown_user';
    const key = pairKey(d.moment_id, d.user_id);
    if (likes.has(key) === liked) return undefined;
    if (liked) likes.add(key);
    else likes.delete(key);
    changed.push([d.moment_id, d.user_id]);
    addTo(counts, d.moment_id, delta);
    addTo(received, author, delta);
    addTo(given, d.user_id, delta);
    return undefined;
  });
  await writeLikes(ctx, liked ? changed : [], liked ? [] : changed, counts);
  await bumpUsersStats(ctx, socialDeltas({ likes_received: received, likes_given: given }));
  return outcomes;
}
