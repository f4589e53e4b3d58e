// Statements compiled once for the moment read endpoints.
import type { Db } from '../../db/connect.js';
import { arg, numArg, prepare } from '../../db/prepared.js';

export function momentReads(db: Db) {
  const k = db.k;
  return {
    likeCount: prepare(db, k.selectFrom('moments').select('like_count').where('moment_id', '=', arg(0))),
    hasLiked: prepare(
      db,
      k.selectFrom('moment_likes').select('seq').where('moment_id', '=', arg(0)).where('user_id', '=', arg(1)),
    ),
    /** Likers newest first: arguments moment_id, limit, offset. */
    likers: prepare(
      db,
      k
        .selectFrom('moment_likes')
        .innerJoin('users', 'users.user_id', 'moment_likes.user_id')
        .select(['users.user_id', 'users.name', 'users.wallet_address', 'users.avatar'])
        .where('moment_likes.moment_id', '=', arg(0))
        .orderBy('moment_likes.seq', 'desc')
        .limit(numArg(1))
        .offset(numArg(2)),
    ),
  };
}
export type MomentReads = ReturnType<typeof momentReads>;
