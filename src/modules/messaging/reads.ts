// Statements compiled once for the send hot path: its admission checks and the view it answers with.
import type { Db } from '../../db/connect.js';
import { arg, prepare } from '../../db/prepared.js';

export function messagingStatements(db: Db) {
  const k = db.k;
  return {
    /** Arguments: group id, sender id. The sender's level and role in the group (null: not a member). */
    senderInGroup: prepare(
      db,
      k
        .selectFrom('users')
        .leftJoin('group_members', (join) =>
          join.onRef('group_members.user_id', '=', 'users.user_id').on('group_members.group_id', '=', arg(0)),
        )
        .select(['users.level', 'group_members.role'])
        .where('users.user_id', '=', arg(1)),
    ),
    /** The sender's level and, for a bot, its private-message setting. */
    senderPrivacy: prepare(
      db,
      k
        .selectFrom('users')
        .leftJoin('bots', 'bots.bot_user_id', 'users.user_id')
        .select(['users.level', 'bots.private_message_policy'])
        .where('users.user_id', '=', arg(0)),
    ),
    userExists: prepare(db, k.selectFrom('users').select('user_id').where('user_id', '=', arg(0))),
    /** Arguments: two user ids (the same one twice for one user). Whom a sent message's view names. */
    viewUsers: prepare(
      db,
      k
        .selectFrom('users')
        .select(['user_id', 'name', 'wallet_address', 'avatar', 'is_bot'])
        .where('user_id', 'in', [arg(0), arg(1)]),
    ),
    groupTitle: prepare(db, k.selectFrom('groups').select('name').where('group_id', '=', arg(0))),
    groupExists: prepare(db, k.selectFrom('groups').select('group_id').where('group_id', '=', arg(0))),
  };
}
export type MessagingStatements = ReturnType<typeof messagingStatements>;
