// A run of follow.created or follow.deleted events applied together: the users and edges it names
// are read once, the events are played in order in memory, then the edges and the summed counter
// deltas are written in one statement each.
import { addTo, type BatchContext, type Outcome } from '../events/index.js';
import { bumpUsersStats, follows, knownUsers, pairKey, type Edge, socialDeltas } from './batch-repo.js';

export interface FollowRef {
  follower_id: string;
  followed_id: string;
}

export async function followTogether(
  ctx: BatchContext,
  events: readonly FollowRef[],
  created: boolean,
): Promise<Outcome[]> {
  const known = await knownUsers(
    ctx,
    events.flatMap((d) => [d.follower_id, d.followed_id]),
  );
  const edges = await follows.existing(
    ctx,
    events.map((d): Edge => [d.follower_id, d.followed_id]),
    !created,
  );
  const added: Edge[] = [];
  const removed: Edge[] = [];
  const following = new Map<string, number>();
  const followers = new Map<string, number>();
  const outcomes = events.map((d): Outcome => {
    if (!known.has(d.follower_id) || !known.has(d.followed_id)) return 'unknown_user';
    if (d.follower_id === d.followed_id) return 'self_follow';
    const key = pairKey(d.follower_id, d.followed_id);
    if (edges.has(key) === created) return undefined;
    if (created) {
      edges.add(key);
      added.push([d.follower_id, d.followed_id]);
    } else {
      edges.delete(key);
      removed.push([d.follower_id, d.followed_id]);
    }
    addTo(following, d.follower_id, created ? 1 : -1);
    addTo(followers, d.followed_id, created ? 1 : -1);
    return undefined;
  });
  await follows.write(ctx, added, removed);
  await bumpUsersStats(ctx, socialDeltas({ following, followers }));
  return outcomes;
}
