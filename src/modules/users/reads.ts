// Statements compiled once for the user read endpoints and the wallet look-ups every statistics
// endpoint starts with.
import type { Db } from '../../db/connect.js';
import { arg, numArg, prepare } from '../../db/prepared.js';

export function userReads(db: Db) {
  const k = db.k;
  return {
    publicUser: prepare(
      db,
      k
        .selectFrom('users')
        .select(['user_id', 'name', 'wallet_address', 'avatar', 'level', 'level_icon', 'is_bot'])
        .where('user_id', '=', arg(0)),
    ),
    /** Arguments: chain id, lower-cased address. */
    userIdByWallet: prepare(
      db,
      k.selectFrom('wallets').select('user_id').where('chain_id', '=', numArg(0)).where('address_norm', '=', arg(1)),
    ),
    stats: prepare(db, k.selectFrom('user_stats').selectAll().where('user_id', '=', arg(0))),
    isFollowing: prepare(
      db,
      k.selectFrom('follows').select('seq').where('follower_id', '=', arg(0)).where('followed_id', '=', arg(1)),
    ),
    /** Followers newest first: arguments followed id, limit, offset. */
    followers: prepare(
      db,
      k
        .selectFrom('follows')
        .innerJoin('users', 'users.user_id', 'follows.follower_id')
        .select(['users.user_id', 'users.name', 'users.wallet_address', 'users.avatar'])
        .where('follows.followed_id', '=', arg(0))
        .orderBy('follows.seq', 'desc')
        .limit(numArg(1))
        .offset(numArg(2)),
    ),
  };
}
export type UserReads = ReturnType<typeof userReads>;
