// Button presses handed to bots as callback_query Updates, and the bots' answers.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.js';

export function callbackQueriesMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const seq = dialect === 'sqlite' ? 'integer' : 'bigint';
      await db.schema
        .createTable('callback_queries')
        .addColumn('seq', seq, (c) =>
          dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity(),
        )
        .addColumn('callback_id', 'text', (c) => c.notNull())
        .addColumn('bot_user_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('message_id', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('answered_at', 'bigint')
        .addColumn('answer_text', 'text')
        .addColumn('show_alert', 'integer', (c) => c.notNull().defaultTo(0))
        .addUniqueConstraint('callback_queries_id', ['callback_id'])
        .execute();
      await db.schema
        .createIndex('callback_queries_answered')
        .on('callback_queries')
        .columns(['answered_at', 'seq'])
        .execute();
    },
  };
}
