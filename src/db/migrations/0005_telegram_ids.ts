// Telegram-compatible numbers (telegram-api.md "Numeric ids") and the Telegram surface's own state.
//
// Every user and bot gets a positive integer id, every group a negative one, every message (a
// user's in chat_messages, a bot's in outbox_messages) an integer id; the messages share one
// counter, so a number is unique within any chat. Numbers are assigned when the row is created,
// whoever inserts it: PostgreSQL by column defaults on sequences, SQLite by triggers on a counter
// table (its defaults must be constants). Numbers are never reused: counters only grow.
// Existing rows are numbered here, in creation order.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dialect } from '../connect.js';

/** First numbers: user ids look like Telegram's, group ids like its supergroups' (-100...). */
export const USER_ID_BASE = 1_000_000;
export const GROUP_ID_BASE = 1_000_000_000_000;

interface Numbered {
  table: string;
  column: string;
  key: string;
  order: string;
  counter: 'user' | 'group' | 'message';
  sign: 1 | -1;
}

const NUMBERED: readonly Numbered[] = [
  { table: 'users', column: 'telegram_id', key: 'user_id', order: 'created_at', counter: 'user', sign: 1 },
  { table: 'groups', column: 'telegram_id', key: 'group_id', order: 'created_at', counter: 'group', sign: -1 },
  {
    table: 'chat_messages',
    column: 'telegram_message_id',
    key: 'message_id',
    order: 'created_at',
    counter: 'message',
    sign: 1,
  },
  {
    table: 'outbox_messages',
    column: 'telegram_message_id',
    key: 'message_id',
    order: 'seq',
    counter: 'message',
    sign: 1,
  },
];

const BASES = { user: USER_ID_BASE, group: GROUP_ID_BASE, message: 0 };

/** Numbers the existing rows after `start`, in creation order; returns the last number used. */
async function backfill(db: Kysely<unknown>, n: Numbered, start: number): Promise<number> {
  const t = sql.table(n.table);
  const col = sql.ref(n.column);
  const key = sql.ref(n.key);
  await sql`update ${t} set ${col} = ${n.sign} * (${start} + r.n)
    from (select ${key} as k, row_number() over (order by ${sql.ref(n.order)}, ${key}) as n from ${t}) as r
    where ${t}.${key} = r.k`.execute(db);
  const count = await sql<{ c: number | string }>`select count(*) as c from ${t}`.execute(db);
  return start + Number(count.rows[0]?.c ?? 0);
}

export function telegramIdsMigration(dialect: Dialect) {
  const pg = dialect === 'postgres';
  const sequence = (counter: string) => sql.raw(`telegram_${counter}_ids`);
  const nextValue = (n: Numbered): RawBuilder<unknown> =>
    n.sign === 1 ? sql`nextval('${sequence(n.counter)}')` : sql`(-nextval('${sequence(n.counter)}'))`;

  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const n of NUMBERED) await db.schema.alterTable(n.table).addColumn(n.column, 'bigint').execute();
      const last: Record<string, number> = { ...BASES };
      for (const n of NUMBERED) last[n.counter] = await backfill(db, n, last[n.counter] ?? 0);

      if (pg) {
        for (const [counter, value] of Object.entries(last)) {
          await sql`create sequence ${sequence(counter)} start with ${sql.lit(value + 1)}`.execute(db);
        }
        for (const n of NUMBERED) {
          await sql`alter table ${sql.table(n.table)} alter column ${sql.ref(n.column)} set default ${nextValue(n)}`.execute(
            db,
          );
        }
      } else {
        await db.schema
          .createTable('telegram_counters')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('last', 'integer', (c) => c.notNull())
          .execute();
        for (const [name, value] of Object.entries(last)) {
          await sql`insert into telegram_counters (name, last) values (${name}, ${value})`.execute(db);
        }
        for (const n of NUMBERED) {
          const counter = sql.lit(n.counter);
          await sql`create trigger ${sql.raw(`${n.table}_telegram_number`)} after insert on ${sql.table(n.table)}
            when new.${sql.ref(n.column)} is null
            begin
              update telegram_counters set last = last + 1 where name = ${counter};
              update ${sql.table(n.table)} set ${sql.ref(n.column)} =
                ${sql.lit(n.sign)} * (select last from telegram_counters where name = ${counter})
                where rowid = new.rowid;
            end`.execute(db);
        }
      }
      for (const n of NUMBERED) {
        await db.schema.createIndex(`${n.table}_${n.column}`).unique().on(n.table).column(n.column).execute();
      }

      // Commands per bot, scope and language (setMyCommands); the scope is kept as canonical JSON.
      await db.schema
        .createTable('bot_commands')
        .addColumn('bot_user_id', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('language_code', 'text', (c) => c.notNull())
        .addColumn('commands', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('bot_commands_pk', ['bot_user_id', 'scope', 'language_code'])
        .execute();
      // Telegram keeps a bot's allowed_updates until it is changed (JSON array; null = every kind).
      await db.schema.alterTable('bots').addColumn('allowed_updates', 'text').execute();
    },
  };
}
