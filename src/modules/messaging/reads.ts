// Statements compiled once for the send hot path: admission checks and the outbox insert.
import type { Db } from '../../db/connect.js';
import { arg, numArg, prepare, typedArg } from '../../db/prepared.js';

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
    groupExists: prepare(db, k.selectFrom('groups').select('group_id').where('group_id', '=', arg(0))),
    insertOutbox: prepare(
      db,
      k.insertInto('outbox_messages').values({
        message_id: arg(0),
        chat_type: typedArg<'private' | 'group'>(12),
        group_id: arg(1),
        to_user_id: arg(2),
        from_user_id: arg(3),
        app_id: arg(4),
        object_name: arg(5),
        title: arg(6),
        content: arg(7),
        normalized: arg(8),
        mention_user_ids: arg(9),
        reply_markup: arg(10),
        created_at: numArg(11),
        edited_at: null,
      }),
    ),
  };
}
export type MessagingStatements = ReturnType<typeof messagingStatements>;
