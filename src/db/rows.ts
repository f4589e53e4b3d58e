// One-row statements that many repositories share: an insert, an insert unless the key is taken,
// a delete by key, a count, and reads by a list of ids.
import { sql, type Insertable, type Kysely, type SelectQueryBuilder } from 'kysely';
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

/** How many rows `query` (a select with its conditions, no columns yet) finds. */
export const countOf = async <T extends keyof DB>(query: SelectQueryBuilder<DB, T, object>): Promise<number> =>
  Number((await query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

/** `read` of the distinct `ids`; no query at all when there are none. */
export const forIds = <R>(ids: readonly string[], read: (distinct: string[]) => Promise<R[]>): Promise<R[]> =>
  ids.length === 0 ? Promise.resolve([]) : read([...new Set(ids)]);
