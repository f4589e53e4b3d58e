import { Migrator, type Migration } from 'kysely';
import type { Db } from './connect.js';
import { initialMigration } from './migrations/0001_initial.js';
import { callbackQueriesMigration } from './migrations/0002_callback_queries.js';
import { developersMigration } from './migrations/0003_developers.js';
import { deliveryOrderMigration } from './migrations/0004_delivery_order.js';
import { telegramIdsMigration } from './migrations/0005_telegram_ids.js';
import { oauthPkceMigration } from './migrations/0006_oauth_pkce.js';
import { consoleMigration } from './migrations/0007_console.js';
import { retentionMigration } from './migrations/0008_retention.js';

/** Brings the schema up to date; safe to call on every start. */
export async function migrate(db: Db): Promise<string[]> {
  const migrations: Record<string, Migration> = {
    '0001_initial': initialMigration(db.dialect),
    '0002_callback_queries': callbackQueriesMigration(db.dialect),
    '0003_developers': developersMigration(),
    '0004_delivery_order': deliveryOrderMigration(db.dialect),
    '0005_telegram_ids': telegramIdsMigration(db.dialect),
    '0006_oauth_pkce': oauthPkceMigration(),
    '0007_console': consoleMigration(db.dialect),
    '0008_retention': retentionMigration(),
  };
  const migrator = new Migrator({
    db: db.k,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    // Kysely looks for its bookkeeping tables in this schema only: several schemas in one
    // PostgreSQL database (tests, tenants) must not see each other's.
    ...(db.schema !== undefined ? { migrationTableSchema: db.schema } : {}),
  });
  const { error, results } = await migrateRetrying(migrator);
  if (error instanceof Error) throw error;
  if (error !== undefined) throw new Error(`migration failed: ${JSON.stringify(error)}`);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

// Kysely's migrator lists the tables of every schema before it starts; a schema dropped by
// someone else at that moment (PostgreSQL: 3F000, 42P01), or a table whose columns change under the
// listing (42703), fails the listing, not the migration.
const TRANSIENT = new Set(['3F000', '42P01', '42703']);

async function migrateRetrying(migrator: Migrator) {
  for (let attempt = 1; ; attempt++) {
    const outcome = await migrator.migrateToLatest();
    const e = outcome.error;
    const transient = e instanceof Error && 'code' in e && typeof e.code === 'string' && TRANSIENT.has(e.code);
    if (!transient || attempt >= 3) return outcome;
  }
}
