import type SQLite from 'better-sqlite3';
import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import type { Db, Dialect } from './connect.js';
import { errorCode } from '../lib/error-code.js';
import { initialMigration } from './migrations/0001_initial.js';
import { callbackQueriesMigration } from './migrations/0002_callback_queries.js';
import { developersMigration } from './migrations/0003_developers.js';
import { deliveryOrderMigration } from './migrations/0004_delivery_order.js';
import { telegramIdsMigration } from './migrations/0005_telegram_ids.js';
import { oauthPkceMigration } from './migrations/0006_oauth_pkce.js';
import { consoleMigration } from './migrations/0007_console.js';
import { retentionMigration } from './migrations/0008_retention.js';
import { editOrderMigration } from './migrations/0009_edit_order.js';
import { deliveryLeaseMigration } from './migrations/0010_delivery_lease.js';
import { grantRetentionMigration } from './migrations/0011_grant_retention.js';
import { groupMemberBotsMigration } from './migrations/0012_group_member_bots.js';
import { familyExpiryMigration } from './migrations/0013_family_expiry.js';
import { webhookMaxConnectionsMigration } from './migrations/0014_webhook_max_connections.js';
import { webhookStreakMigration } from './migrations/0015_webhook_streak.js';
import type { DB } from './types.js';

/** The schema's migrations, in order. */
export function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_initial': initialMigration(dialect),
    '0002_callback_queries': callbackQueriesMigration(dialect),
    '0003_developers': developersMigration(),
    '0004_delivery_order': deliveryOrderMigration(dialect),
    '0005_telegram_ids': telegramIdsMigration(dialect),
    '0006_oauth_pkce': oauthPkceMigration(),
    '0007_console': consoleMigration(dialect),
    '0008_retention': retentionMigration(),
    '0009_edit_order': editOrderMigration(dialect),
    '0010_delivery_lease': deliveryLeaseMigration(),
    '0011_grant_retention': grantRetentionMigration(),
    '0012_group_member_bots': groupMemberBotsMigration(),
    '0013_family_expiry': familyExpiryMigration(),
    '0014_webhook_max_connections': webhookMaxConnectionsMigration(),
    '0015_webhook_streak': webhookStreakMigration(),
  };
}

/** Brings the schema up to date; safe to call on every start, by several processes at once. */
export async function migrate(db: Db, list: Record<string, Migration> = migrations(db.dialect)): Promise<string[]> {
  const { error, results } =
    db.native.dialect === 'sqlite'
      ? await migrateSqlite(db.k, db.native.writer, list)
      : await migratePostgres(db, list);
  if (error instanceof Error) throw error;
  if (error !== undefined) throw new Error(`migration failed: ${JSON.stringify(error)}`);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

const provider = (list: Record<string, Migration>) => ({ getMigrations: () => Promise.resolve(list) });

/**
 * Kysely runs SQLite migrations outside any transaction and without a lock: a process killed
 * mid-way left tables its bookkeeping does not list (the next start failed on "already exists"),
 * and two processes starting on a fresh file raced the same way. The whole run is one
 * BEGIN IMMEDIATE transaction instead (SQLite's DDL is transactional): it applies entirely or not
 * at all, and a second process waits for the write lock (busy_timeout), then finds it done.
 */
async function migrateSqlite(k: Kysely<DB>, writer: SQLite.Database, list: Record<string, Migration>) {
  return k.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const outcome = await new Migrator({ db: conn, provider: provider(list) }).migrateToLatest();
      await sql.raw(outcome.error === undefined ? 'commit' : 'rollback').execute(conn);
      return outcome;
    } finally {
      // Thrown before the end (or a commit SQLite refused): undo what the run did.
      if (writer.inTransaction) await sql`rollback`.execute(conn);
    }
  });
}

/**
 * The pool's statement timeout (connect.ts) is for requests: an index build on a large table may
 * take longer, and so may the wait for Kysely's migration lock while another instance runs one.
 * The run therefore has a connection of its own with no timeout, given back as the pool had it.
 */
async function migratePostgres(db: Db, list: Record<string, Migration>) {
  return db.k.connection().execute(async (conn) => {
    await sql`set statement_timeout = 0`.execute(conn);
    try {
      const migrator = new Migrator({
        db: conn,
        provider: provider(list),
        // Kysely looks for its bookkeeping tables in this schema only: several schemas in one
        // PostgreSQL database (tests, tenants) must not see each other's.
        ...(db.schema !== undefined ? { migrationTableSchema: db.schema } : {}),
      });
      return await migrateRetrying(migrator);
    } finally {
      // A connection broken meanwhile is dropped by the pool; its failure must not hide the run's.
      await sql`reset statement_timeout`.execute(conn).catch(() => undefined);
    }
  });
}

// Kysely's migrator lists the tables of every schema before it starts; a schema dropped by
// someone else at that moment (PostgreSQL: 3F000, 42P01), or a table whose columns change under the
// listing (42703), fails the listing, not the migration.
const TRANSIENT: ReadonlySet<string | undefined> = new Set(['3F000', '42P01', '42703']);

async function migrateRetrying(migrator: Migrator) {
  for (let attempt = 1; ; attempt++) {
    const outcome = await migrator.migrateToLatest();
    const e = outcome.error;
    const transient = TRANSIENT.has(errorCode(e));
    if (!transient || attempt >= 3) return outcome;
  }
}
