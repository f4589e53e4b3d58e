import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.js';

/** The user's conversation state as stored (JSON text), if one is under way. */
export const conversationOf = async (tx: Kysely<DB>, userId: string): Promise<string | undefined> =>
  (await tx.selectFrom('assistant_conversations').select('state').where('user_id', '=', userId).executeTakeFirst())
    ?.state;

export async function saveConversation(tx: Kysely<DB>, userId: string, state: string, now: number): Promise<void> {
  await tx
    .insertInto('assistant_conversations')
    .values({ user_id: userId, state, updated_at: now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ state, updated_at: now }))
    .execute();
}

export async function endConversation(tx: Kysely<DB>, userId: string): Promise<void> {
  await tx.deleteFrom('assistant_conversations').where('user_id', '=', userId).execute();
}
