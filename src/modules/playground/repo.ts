// What the playground reads: the bots a user can talk to, the groups a bot is in, and one chat's
// messages (users' from chat_messages, bots' from the outbox) since a point in time.
import type { Kysely } from 'kysely';
import type { Dialect } from '../../db/connect.js';
import { byteOrder } from '../../db/rows.js';
import type { DB } from '../../db/types.js';

/** The demo bot's user id, when the demo community is loaded (src/demo/demo.ts keeps it in meta). */
export async function demoBotId(q: Kysely<DB>): Promise<string | undefined> {
  const row = await q.selectFrom('meta').select('value').where('key', '=', 'demo').executeTakeFirst();
  const stored: unknown = row === undefined ? undefined : JSON.parse(row.value);
  return typeof stored === 'object' && stored !== null && 'botUserId' in stored && typeof stored.botUserId === 'string'
    ? stored.botUserId
    : undefined;
}

export const botsOwnedBy = (q: Kysely<DB>, ownerUserId: string): Promise<string[]> =>
  q
    .selectFrom('bots')
    .select('bot_user_id')
    .where('owner_user_id', '=', ownerUserId)
    .orderBy('created_at')
    .orderBy('bot_user_id')
    .execute()
    .then((rows) => rows.map((r) => r.bot_user_id));

export const namesOf = (q: Kysely<DB>, userIds: readonly string[]) =>
  userIds.length === 0
    ? Promise.resolve([])
    : q.selectFrom('users').select(['user_id', 'name', 'is_bot']).where('user_id', 'in', userIds).execute();

export const groupsWith = (q: Kysely<DB>, dialect: Dialect, userId: string) =>
  q
    .selectFrom('group_members')
    .innerJoin('groups', 'groups.group_id', 'group_members.group_id')
    .select(['groups.group_id', 'groups.name'])
    .where('group_members.user_id', '=', userId)
    .orderBy(byteOrder(dialect, 'groups.name'))
    .orderBy('groups.group_id')
    .execute();

/** Where a conversation is: the user's private chat with a bot, or a group. */
export type ChatKey = { type: 'private'; userId: string; botUserId: string } | { type: 'group'; groupId: string };

/** Users' messages of the chat created at or after `since` (ms), newest last; at most `limit`, the latest. */
export async function userMessages(q: Kysely<DB>, chat: ChatKey, since: number, limit: number) {
  let query = q
    .selectFrom('chat_messages')
    .select(['message_id', 'from_user_id', 'text', 'mention_user_ids', 'created_at'])
    .where('created_at', '>=', since);
  query =
    chat.type === 'group'
      ? query.where('chat_type', '=', 'group').where('group_id', '=', chat.groupId)
      : query
          .where('chat_type', '=', 'private')
          .where('from_user_id', '=', chat.userId)
          .where('to_user_id', '=', chat.botUserId);
  // Messages of one batch share created_at; their numbers are drawn in the order they were written.
  return (
    await query.orderBy('created_at', 'desc').orderBy('telegram_message_id', 'desc').limit(limit).execute()
  ).reverse();
}

const outboxOf = (q: Kysely<DB>, chat: ChatKey) => {
  const query = q.selectFrom('outbox_messages');
  return chat.type === 'group'
    ? query.where('chat_type', '=', 'group').where('group_id', '=', chat.groupId)
    : query
        .where('chat_type', '=', 'private')
        .where('from_user_id', '=', chat.botUserId)
        .where('to_user_id', '=', chat.userId);
};

/** Bots' messages of the chat created or edited at or after `since` (ms), newest last; at most `limit`. */
export async function botMessages(q: Kysely<DB>, chat: ChatKey, since: number, limit: number) {
  const rows = await outboxOf(q, chat)
    .select([
      'seq',
      'message_id',
      'from_user_id',
      'title',
      'content',
      'normalized',
      'mention_user_ids',
      'reply_markup',
      'created_at',
      'edited_at',
    ])
    .where((e) => e.or([e('created_at', '>=', since), e('edited_at', '>=', since)]))
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
  return rows.reverse();
}

export type UserMessageRow = Awaited<ReturnType<typeof userMessages>>[number];
export type BotMessageRow = Awaited<ReturnType<typeof botMessages>>[number];

/** Whether a bot's message is in the chat (the target of a button press must be). */
export async function botMessageIn(q: Kysely<DB>, chat: ChatKey, messageId: string): Promise<boolean> {
  const row = await outboxOf(q, chat).select('message_id').where('message_id', '=', messageId).executeTakeFirst();
  return row !== undefined;
}
