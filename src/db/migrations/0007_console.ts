// The operator console: its sign-in sessions (the cookie holds a random token, never the operator's
// token) and the audit trail of operator actions, from the console and the operator API.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.js';

export function consoleMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('console_sessions')
        .addColumn('session_hash', 'text', (c) => c.primaryKey())
        .addColumn('operator_name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('audit_log')
        .addColumn('seq', dialect === 'sqlite' ? 'integer' : 'bigint', (c) =>
          dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity(),
        )
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('target', 'text', (c) => c.notNull())
        .addColumn('detail', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  };
}
