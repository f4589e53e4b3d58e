// Cursors that never skip, and delivery costs per bot rather than per pending Update (issue 13).
//
// PostgreSQL: every INSERT into outbox_messages first takes a transaction-scoped advisory lock
// (a statement-level trigger fires before the row defaults, so before `seq` is drawn). Outbox
// writers therefore draw their seqs and commit one after another: no row with a smaller seq can
// become visible after one with a larger seq, and an operator following `next_cursor` (the seq)
// never passes a row that commits later. SQLite has one writer, which already works that way.
//
// Both stores: expiring Updates by age uses an index on created_at, and the dispatcher finds due
// Updates from the bots with a webhook (a partial index) instead of scanning every due row.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.js';

export function deliveryOrderMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'postgres') {
        // Two-key form: its key space does not overlap the single-key locks taken elsewhere.
        // The table's oid keeps schemas that share a database (tests, tenants) from waiting on each other.
        await sql`create function outbox_in_commit_order() returns trigger language plpgsql as $$
          begin
            perform pg_advisory_xact_lock(0, TG_RELID::integer);
            return null;
          end $$`.execute(db);
        await sql`create trigger outbox_messages_commit_order before insert on outbox_messages
          for each statement execute function outbox_in_commit_order()`.execute(db);
      }
      await db.schema.createIndex('updates_created').on('updates').column('created_at').execute();
      // The head of each bot's queue is found through updates_bot_update; this one is no longer read.
      await db.schema.dropIndex('updates_due').execute();
      await db.schema
        .createIndex('bots_webhook')
        .on('bots')
        .column('bot_user_id')
        .where(sql.ref('webhook_url'), 'is not', null)
        .execute();
    },
  };
}
