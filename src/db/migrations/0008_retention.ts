// The retention sweep (src/modules/retention/) deletes expired rows by these columns once a minute;
// without an index each delete would read its whole table. webhook_deliveries(created_at) has had
// one since 0003.
import type { Kysely } from 'kysely';

export function retentionMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created_at').execute();
      await db.schema.createIndex('sessions_expires').on('sessions').column('expires_at').execute();
      await db.schema.createIndex('console_sessions_expires').on('console_sessions').column('expires_at').execute();
    },
  };
}
