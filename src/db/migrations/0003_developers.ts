// The developer site and the assistant: the assistant's own user, and what redelivering a failed
// webhook delivery needs (the Update it carried, kept on failed attempts only).
import { sql, type Kysely } from 'kysely';
import { ASSISTANT_NAME } from '../../lib/input-rules.js';

// The name lives with the name rule, which refuses it to bots and apps.
export { ASSISTANT_NAME };

/** The bot-creation assistant's user id (GET /internal/v1/assistant); not a developer's bot. */
export const ASSISTANT_USER_ID = '1000000000000000000';

export function developersMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('webhook_deliveries').addColumn('payload', 'text').execute();
      await db.schema
        .createIndex('webhook_deliveries_created')
        .on('webhook_deliveries')
        .columns(['created_at'])
        .execute();
      const now = Date.now();
      await sql`insert into users (user_id, name, wallet_address, avatar, level, level_icon, is_bot, created_at, updated_at)
        values (${ASSISTANT_USER_ID}, ${ASSISTANT_NAME}, '', '', 1, '', 1, ${now}, ${now})`.execute(db);
    },
  };
}
