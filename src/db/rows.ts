// One-row statements that many repositories share: an insert, an insert unless the key is taken,
// a delete by key, a count, and reads by a list of ids.
import {
  sql,
  type Expression,
  type Insertable,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
} from 'kysely';
import type { Dialect } from './connect.js';
import type { DB } from './types.js';

type Column<T extends keyof DB> = keyof DB[T] & string;

export async function insertRow<T extends keyof DB>(tx: Kysely<DB>, table: T, row: Insertable<DB[T]>): Promise<void> {
  await tx.insertInto(table).values(row).execute();
}

/** Inserts `row` unless a row with the same `key` columns exists; false when one did. */
export async function insertNew<T extends keyof DB>(
  tx: Kysely<DB>,
  table: T,
  row: Insertable<DB[T]>,
  key: readonly Column<T>[],
): Promise<boolean> {
  const r = await tx
    .insertInto(table)
    .values(row)
    .onConflict((oc) => oc.columns(key).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Deletes the rows whose columns equal `key` (every column given); false when there were none. */
export async function deleteRow<T extends keyof DB>(
  tx: Kysely<DB>,
  table: T,
  key: Partial<Record<Column<T>, string | number>>,
): Promise<boolean> {
  const conditions = Object.entries(key).map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
  const r = await sql`delete from ${sql.table(table)} where ${sql.join(conditions, sql` and `)}`.execute(tx);
  return Number(r.numAffectedRows ?? 0) > 0;
}

/**
 * `column` to order by its bytes on both stores: SQLite's BINARY collation does, PostgreSQL's
 * follows the database's locale (case and punctuation weigh less) unless told "C".
 */
export const byteOrder = (dialect: Dialect, column: string): RawBuilder<string> =>
  dialect === 'postgres' ? sql<string>`${sql.ref(column)} collate "C"` : sql<string>`${sql.ref(column)}`;

/** How many rows `query` (a select with its conditions, no columns yet) finds. */
export const countOf = async <T extends keyof DB>(query: SelectQueryBuilder<DB, T, object>): Promise<number> =>
  Number((await query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

/** `read` of the distinct `ids`; no query at all when there are none. */
export const forIds = <R>(ids: readonly string[], read: (distinct: string[]) => Promise<R[]>): Promise<R[]> =>
  ids.length === 0 ? Promise.resolve([]) : read([...new Set(ids)]);

/** Rows one statement of deleteBatched removes at most. */
const DELETE_BATCH = 1_000;

/**
 * Deletes the rows whose `column` is below `bound` (or at it, `inclusive`) and that match `where`
 * (if given; unqualified columns are the table's), as deleteBatched does. Returns how many went.
 */
export async function deleteOlder<T extends keyof DB>(
  q: Kysely<DB>,
  table: T,
  key: readonly Column<T>[],
  column: Column<T>,
  bound: number,
  options: { inclusive?: boolean; where?: Expression<SqlBool> } = {},
): Promise<number> {
  const below = options.inclusive === true ? sql`<=` : sql`<`;
  const also = options.where === undefined ? sql`` : sql` and ${options.where}`;
  return deleteBatched(q, table, key, sql`${sql.ref(column)} ${below} ${bound}${also}`, options.where);
}

/**
 * Deletes the rows that match `found`, a thousand at a time with a turn of the event loop between:
 * a backlog of a million rows in one statement held the process (SQLite runs on its thread) for a
 * second and a half. `key` identifies a row; `recheck`, if given, is asked again of the row deleted:
 * PostgreSQL rechecks only the outer conditions against a row another transaction changed since the
 * subquery read it (a lease taken meanwhile). Returns how many went.
 */
export async function deleteBatched<T extends keyof DB>(
  q: Kysely<DB>,
  table: T,
  key: readonly Column<T>[],
  found: Expression<SqlBool>,
  recheck?: Expression<SqlBool>,
): Promise<number> {
  const keys = sql.join(key.map((k) => sql.ref(k)));
  const also = recheck === undefined ? sql`` : sql` and ${recheck}`;
  let deleted = 0;
  for (;;) {
    const r = await sql`delete from ${sql.table(table)} where (${keys}) in (select ${keys} from ${sql.table(table)}
      where ${found} limit ${DELETE_BATCH})${also}`.execute(q);
    const n = Number(r.numAffectedRows ?? 0);
    deleted += n;
    if (n < DELETE_BATCH) return deleted;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
