import type { Kysely } from 'kysely';
import type { ChatMessagesTable, DB } from '../../db/types.js';

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
