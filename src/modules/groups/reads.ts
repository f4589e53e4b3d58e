// Statements compiled once for the group read endpoints.
import type { Db } from '../../db/connect.js';
import { arg, prepare } from '../../db/prepared.js';

export function groupReads(db: Db) {
  const k = db.k;
  const groups = k
    .selectFrom('groups')
    .select([
      'group_id',
      'name',
      'pic',
      'is_charge',
      'subchannel_number',
      'maximum',
      'created_at',
      'member_count',
      'boxes_sent',
      'boxes_sent_cents',
    ]);
  return {
    byInviteUrl: prepare(db, groups.where('invite_url_norm', '=', arg(0))),
    byId: prepare(db, groups.where('group_id', '=', arg(0))),
    moderatorNames: prepare(
      db,
      k
        .selectFrom('group_members')
        .innerJoin('users', 'users.user_id', 'group_members.user_id')
        .select('users.name')
        .where('group_members.group_id', '=', arg(0))
        .where('group_members.role', '=', 'moderator')
        .orderBy('group_members.seq')
        .limit(100),
    ),
    isMember: prepare(
      db,
      k.selectFrom('group_members').select('seq').where('group_id', '=', arg(0)).where('user_id', '=', arg(1)),
    ),
    userInGroup: prepare(
      db,
      k
        .selectFrom('user_group_stats')
        .select(['votes', 'draws_initiated', 'draws_entered', 'draws_won', 'boxes_received'])
        .where('user_id', '=', arg(0))
        .where('group_id', '=', arg(1)),
    ),
  };
}
export type GroupReads = ReturnType<typeof groupReads>;
