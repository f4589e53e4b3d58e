import type { Kysely } from 'kysely';
import type { ChatMessagesTable, DB } from '../../db/types.js';
import { type BatchContext, json, jsonList, run, statement } from '../events/index.js';
import { nextMessageNumbers, type UserMessage } from '../messaging/index.js';

export const chatMessageExists = async (tx: Kysely<DB>, messageId: string): Promise<boolean> =>
  (await tx.selectFrom('chat_messages').select('message_id').where('message_id', '=', messageId).executeTakeFirst()) !==
  undefined;

export async function insertChatMessage(tx: Kysely<DB>, m: ChatMessagesTable): Promise<void> {
  await tx.insertInto('chat_messages').values(m).execute();
}

/** The Telegram number the store gave a user's message when it was recorded (migration 0005). */
export const messageNumber = async (tx: Kysely<DB>, messageId: string): Promise<number> =>
  (
    await tx
      .selectFrom('chat_messages')
      .select('telegram_message_id')
      .where('message_id', '=', messageId)
      .executeTakeFirstOrThrow()
  ).telegram_message_id;

/** The distinct ids as the JSON parameter of `list(...)`; undefined when there are none (no query). */
const ids = (values: Iterable<string>): string | undefined => {
  const distinct = new Set(values);
  return distinct.size === 0 ? undefined : jsonList(distinct);
};

const existing = statement(
  (_, list) => `SELECT message_id FROM chat_messages WHERE message_id IN (SELECT r.id FROM ${list('id')} AS r)`,
);

/** Which of `messageIds` are recorded (chatMessageExists for many at once). */
export async function existingMessages(ctx: BatchContext, messageIds: Iterable<string>): Promise<Set<string>> {
  const list = ids(messageIds);
  if (list === undefined) return new Set();
  return new Set((await run<{ message_id: string }>(ctx, existing, [list])).map((r) => r.message_id));
}

const insertMany = statement(
  (rows) => `INSERT INTO chat_messages
    (message_id, chat_type, from_user_id, group_id, to_user_id, kind, text, mention_user_ids, created_at, telegram_message_id)
    SELECT r.id, r.chat_type, r.from_id, r.group_id, r.to_id, r.kind, r.text, r.mentions, ?, r.number
    FROM ${rows({ id: 'text', chat_type: 'text', from_id: 'text', group_id: 'text', to_id: 'text', kind: 'text', text: 'text', mentions: 'text', number: 'int' })} AS r
    ORDER BY r.ord`,
);

/**
 * insertChatMessage for many messages received at `ctx.now`, in the order given, numbered from one
 * draw of the message counter (the numbers the store would have given them one at a time).
 */
export async function insertChatMessages(
  ctx: BatchContext,
  messages: readonly UserMessage[],
): Promise<{ message: UserMessage; number: number }[]> {
  const numbers = await nextMessageNumbers(ctx.tx, ctx.dialect, messages.length);
  const numbered = messages.map((message, i) => {
    const number = numbers[i];
    if (number === undefined) throw new Error('fewer message numbers drawn than messages');
    return { message, number };
  });
  const rows = numbered.map(({ message: m, number }) => [
    m.message_id,
    m.chat_type,
    m.from_user_id,
    m.group_id,
    m.to_user_id,
    m.kind,
    m.text,
    JSON.stringify(m.mention_user_ids),
    number,
  ]);
  if (rows.length > 0) await run(ctx, insertMany, [ctx.now, json(rows)]);
  return numbered;
}

const titles = statement(
  (_, list) => `SELECT group_id, name FROM groups WHERE group_id IN (SELECT r.id FROM ${list('id')} AS r)`,
);

/** The groups among `groupIds` that exist (findGroup for many at once), with their titles. */
export async function groupTitles(ctx: BatchContext, groupIds: Iterable<string>): Promise<Map<string, string>> {
  const list = ids(groupIds);
  if (list === undefined) return new Map();
  return new Map((await run<{ group_id: string; name: string }>(ctx, titles, [list])).map((r) => [r.group_id, r.name]));
}
