// The Telegram surface's reads and its own state (commands, allowed_updates). Numbers are read by
// the platform's ids in batches: a presentation costs one query per kind of object.
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Db } from '../../db/connect.js';
import { lockRow } from '../../db/counters.js';
import { arg, numArg, prepare } from '../../db/prepared.js';
import { countOf, forIds } from '../../db/rows.js';
import type { DB, GroupRole } from '../../db/types.js';
import { numberOf, type ChatRef } from '../messaging/index.js';

export { roleIn as roleOf } from '../groups/index.js';

export const usersByIds = (tx: Kysely<DB>, ids: readonly string[]) =>
  forIds(ids, (some) =>
    tx.selectFrom('users').select(['user_id', 'telegram_id', 'name', 'is_bot']).where('user_id', 'in', some).execute(),
  );

export const groupsByIds = (tx: Kysely<DB>, ids: readonly string[]) =>
  forIds(ids, (some) =>
    tx
      .selectFrom('groups')
      .select(['group_id', 'telegram_id', 'name', 'owner_id'])
      .where('group_id', 'in', some)
      .execute(),
  );

/** Telegram message ids of users' and bots' messages, by the platform's message ids. */
export async function messageNumbers(tx: Kysely<DB>, ids: readonly string[]): Promise<Map<string, number>> {
  const rows = await forIds(ids, (some) =>
    tx
      .selectFrom('outbox_messages')
      .select(['message_id', 'telegram_message_id'])
      .where('message_id', 'in', some)
      .unionAll(
        tx.selectFrom('chat_messages').select(['message_id', 'telegram_message_id']).where('message_id', 'in', some),
      )
      .execute(),
  );
  return new Map(rows.map((r) => [r.message_id, r.telegram_message_id]));
}

/**
 * The reads of every send through /telegram (its chat by number, the people and group of the Message
 * it answers), compiled once (db/prepared.ts; built with the other services). Built by Kysely on
 * every call, each was compiled anew and, on SQLite, waited for the writer's one connection behind
 * the outbox's transactions; these read committed rows on the read-only connection.
 */
export function telegramReads(db: Db) {
  const k = db.k;
  const people = ['user_id', 'telegram_id', 'name', 'is_bot'] as const;
  return {
    userIdByNumber: prepare(db, k.selectFrom('users').select('user_id').where('telegram_id', '=', numArg(0))),
    groupIdByNumber: prepare(db, k.selectFrom('groups').select('group_id').where('telegram_id', '=', numArg(0))),
    /** Arguments: two user ids (the same one twice for one user). */
    twoUsers: prepare(
      db,
      k
        .selectFrom('users')
        .select(people)
        .where('user_id', 'in', [arg(0), arg(1)]),
    ),
    group: prepare(
      db,
      k.selectFrom('groups').select(['group_id', 'telegram_id', 'name', 'owner_id']).where('group_id', '=', arg(0)),
    ),
  };
}
export type TelegramReads = ReturnType<typeof telegramReads>;

export const telegramIdOf = async (tx: Kysely<DB>, userId: string) =>
  (await tx.selectFrom('users').select('telegram_id').where('user_id', '=', userId).executeTakeFirst())?.telegram_id;

/**
 * The group's members holding one of `roles` (its owner left out: it is listed as the owner), the
 * earliest to join first, at most `limit`. Bots other than `botUserId` are left out, as Telegram's
 * getChatAdministrators leaves out every bot but the one asking.
 */
export function membersWithRoles(
  tx: Kysely<DB>,
  g: { groupId: string; ownerId: string | null },
  roles: readonly GroupRole[],
  botUserId: string,
  limit: number,
) {
  let q = tx
    .selectFrom('group_members as m')
    .innerJoin('users as u', 'u.user_id', 'm.user_id')
    .select(['m.user_id', 'm.role'])
    .where('m.group_id', '=', g.groupId)
    .where('m.role', 'in', roles)
    .where((eb) => eb.or([eb('u.is_bot', '=', 0), eb('m.user_id', '=', botUserId)]));
  if (g.ownerId !== null) q = q.where('m.user_id', '!=', g.ownerId);
  return q.orderBy('m.seq').limit(limit).execute();
}

/**
 * Who sent a message of the chat as `botUserId` sees it (a group's, or the private chat's between
 * the bot and the user), by its Telegram number or platform id: the bot's messages and users'
 * messages alike. Undefined when the chat has no such message.
 */
export async function senderInChat(
  tx: Kysely<DB>,
  chat: ChatRef,
  botUserId: string,
  ref: string | number,
): Promise<string | undefined> {
  const n = numberOf(ref);
  if (n === null) return undefined;
  const byRef = (eb: ExpressionBuilder<DB, 'outbox_messages' | 'chat_messages'>) =>
    n === undefined ? eb('message_id', '=', String(ref)) : eb('telegram_message_id', '=', n);
  // In a private chat the bot's messages go to the user, and the user's to the bot.
  const user = chat.type === 'private' ? chat.id : undefined;
  const rows = await tx
    .selectFrom('outbox_messages')
    .select('from_user_id')
    .where((eb) => byRef(eb))
    .where('chat_type', '=', chat.type)
    .where((eb) =>
      user === undefined ? eb('group_id', '=', chat.id) : eb.and({ from_user_id: botUserId, to_user_id: user }),
    )
    .unionAll(
      tx
        .selectFrom('chat_messages')
        .select('from_user_id')
        .where((eb) => byRef(eb))
        .where('chat_type', '=', chat.type)
        .where((eb) =>
          user === undefined ? eb('group_id', '=', chat.id) : eb.and({ from_user_id: user, to_user_id: botUserId }),
        ),
    )
    .execute();
  return rows[0]?.from_user_id;
}

/** The oldest update id among the last `count` pending ones of a bot, if any are pending. */
export const lastPendingFrom = async (tx: Kysely<DB>, botUserId: string, count: number) => {
  const rows = await tx
    .selectFrom('updates')
    .select('update_id')
    .where('bot_user_id', '=', botUserId)
    .orderBy('update_id', 'desc')
    .limit(count)
    .execute();
  return rows.at(-1)?.update_id;
};

export const lastUpdateId = async (tx: Kysely<DB>, botUserId: string) =>
  (await tx.selectFrom('bots').select('last_update_id').where('bot_user_id', '=', botUserId).executeTakeFirst())
    ?.last_update_id ?? 0;

export const allowedUpdates = async (tx: Kysely<DB>, botUserId: string) =>
  (await tx.selectFrom('bots').select('allowed_updates').where('bot_user_id', '=', botUserId).executeTakeFirst())
    ?.allowed_updates ?? null;

export async function setAllowedUpdates(tx: Kysely<DB>, botUserId: string, json: string | null): Promise<void> {
  await tx.updateTable('bots').set({ allowed_updates: json }).where('bot_user_id', '=', botUserId).execute();
}

export interface CommandsKey {
  botUserId: string;
  scope: string;
  languageCode: string;
}

/**
 * Sets one command list; false, writing nothing, when it would be a new list beyond `maxLists` of
 * the bot's (replacing a list it has always works). The bot's row is locked first, so that two new
 * lists cannot both take the last place (PostgreSQL; SQLite writers are serial).
 */
export async function setCommands(
  tx: Kysely<DB>,
  k: CommandsKey,
  commands: string,
  now: number,
  maxLists: number,
): Promise<boolean> {
  await lockRow(tx, 'bots', 'bot_user_id', k.botUserId);
  if (
    (await commandsOf(tx, k)) === undefined &&
    (await countOf(tx.selectFrom('bot_commands').where('bot_user_id', '=', k.botUserId))) >= maxLists
  )
    return false;
  await tx
    .insertInto('bot_commands')
    .values({ bot_user_id: k.botUserId, scope: k.scope, language_code: k.languageCode, commands, updated_at: now })
    .onConflict((oc) =>
      oc.columns(['bot_user_id', 'scope', 'language_code']).doUpdateSet({ commands, updated_at: now }),
    )
    .execute();
  return true;
}

export const commandsOf = async (tx: Kysely<DB>, k: CommandsKey) =>
  (
    await tx
      .selectFrom('bot_commands')
      .select('commands')
      .where('bot_user_id', '=', k.botUserId)
      .where('scope', '=', k.scope)
      .where('language_code', '=', k.languageCode)
      .executeTakeFirst()
  )?.commands;

export async function deleteCommands(tx: Kysely<DB>, k: CommandsKey): Promise<void> {
  await tx
    .deleteFrom('bot_commands')
    .where('bot_user_id', '=', k.botUserId)
    .where('scope', '=', k.scope)
    .where('language_code', '=', k.languageCode)
    .execute();
}
