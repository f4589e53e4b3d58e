// The operator's feed of edits (GET /internal/v1/messages/edits) pages by `edit_seq`, a number
// drawn afresh every time a sent message changes, so the feed's cursor never skips an edit for
// the same reasons the outbox's `seq` never skips a send (0004).
//
// PostgreSQL: an UPDATE of what a message shows first takes the advisory lock the outbox's inserts
// take (statement-level, before any row is locked, so a send and an edit always take the lock
// before a row), then a row-level trigger draws the number from a sequence. Edits and sends
// therefore draw their numbers and commit one after another. SQLite has one writer; a trigger
// draws the number from a counter table (its defaults and triggers cannot call a sequence).
// A number is drawn by the store, not by the code: every path that edits a message is counted.
// Messages edited before this migration are numbered here, in the order of their last edit.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.js';

/** The columns whose change is an edit: what the operator's message view shows. */
const EDITED = ['content', 'normalized', 'reply_markup', 'object_name', 'title', 'mention_user_ids', 'edited_at'];

export function editOrderMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('outbox_messages').addColumn('edit_seq', 'bigint').execute();
      await sql`update outbox_messages set edit_seq = r.n
        from (select seq, row_number() over (order by edited_at, seq) as n
              from outbox_messages where edited_at is not null) as r
        where outbox_messages.seq = r.seq`.execute(db);
      const counted = await sql<{ c: number | string }>`select count(*) as c from outbox_messages
        where edit_seq is not null`.execute(db);
      const last = Number(counted.rows[0]?.c ?? 0);
      const columns = sql.raw(EDITED.join(', '));

      if (dialect === 'postgres') {
        await sql`create sequence outbox_edit_seqs start with ${sql.lit(last + 1)}`.execute(db);
        // The sequence in the trigger's own schema: tests and tenants share a database by schema.
        await sql`create function outbox_edit_number() returns trigger language plpgsql as $$
          begin
            new.edit_seq := nextval(format('%I.outbox_edit_seqs', TG_TABLE_SCHEMA));
            return new;
          end $$`.execute(db);
        // outbox_in_commit_order (0004) takes the lock; ordered before the row trigger by PostgreSQL
        // itself (statement-level BEFORE triggers fire before any row is read).
        await sql`create trigger outbox_messages_edit_order before update of ${columns} on outbox_messages
          for each statement execute function outbox_in_commit_order()`.execute(db);
        await sql`create trigger outbox_messages_edit_number before update of ${columns} on outbox_messages
          for each row execute function outbox_edit_number()`.execute(db);
      } else {
        await db.schema
          .createTable('outbox_counters')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('last', 'integer', (c) => c.notNull())
          .execute();
        await sql`insert into outbox_counters (name, last) values ('edit', ${last})`.execute(db);
        // Sets only edit_seq, which is not among the columns it fires on: it does not fire itself.
        await sql`create trigger outbox_messages_edit_number after update of ${columns} on outbox_messages
          begin
            update outbox_counters set last = last + 1 where name = 'edit';
            update outbox_messages set edit_seq = (select last from outbox_counters where name = 'edit')
              where rowid = new.rowid;
          end`.execute(db);
      }
      // Partial: most messages are never edited, and the feed's `edit_seq > cursor` implies the filter.
      await db.schema
        .createIndex('outbox_messages_edit_seq')
        .unique()
        .on('outbox_messages')
        .column('edit_seq')
        .where(sql.ref('edit_seq'), 'is not', null)
        .execute();
    },
  };
}
