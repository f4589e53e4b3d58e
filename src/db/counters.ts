// Counter arithmetic done in SQL (col = col + n), so concurrent events never lose an update.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB } from './types.js';

type NumericColumn<T> = { [K in keyof T]-?: T[K] extends number ? K : never }[keyof T] & string;
export type Deltas<T extends keyof DB> = Partial<Record<NumericColumn<Selectable<DB[T]>>, number>>;

const assignments = (deltas: Record<string, number | undefined>) =>
  Object.entries(deltas)
    .filter((e): e is [string, number] => e[1] !== undefined && e[1] !== 0)
    .map(([col, d]) => sql`${sql.ref(col)} = ${sql.ref(col)} + ${d}`);

/** Adds deltas to the counters of one existing row. */
export async function bump<T extends 'user_stats' | 'groups' | 'moments' | 'lucky_boxes'>(
  tx: Kysely<DB>,
  table: T,
  keyColumn: keyof DB[T] & string,
  key: string,
  deltas: Deltas<T>,
): Promise<void> {
  const sets = assignments(deltas);
  if (sets.length === 0) return;
  await sql`update ${sql.table(table)} set ${sql.join(sets)} where ${sql.ref(keyColumn)} = ${key}`.execute(tx);
}

type LockedTable = 'users' | 'user_stats' | 'groups' | 'moments' | 'lucky_boxes' | 'bots';

/**
 * Locks one row until the transaction ends, so that reading its counters, checking a limit and
 * bumping cannot interleave with another transaction (PostgreSQL; SQLite writers are serial).
 * A no-op update rather than FOR UPDATE, which SQLite does not know; no row, no lock.
 */
export async function lockRow<T extends LockedTable>(
  tx: Kysely<DB>,
  table: T,
  keyColumn: keyof DB[T] & string,
  key: string,
): Promise<void> {
  await lockIfRoom(tx, table, keyColumn, key, {});
}

/**
 * lockRow, taken only where adding each (growing) delta keeps its counter within what a JS number
 * holds exactly (these counters are read back as numbers); false, with no lock and no change, when
 * one would pass 2^53 - 1 (or there is no row). The bound is in the UPDATE's WHERE: a concurrent
 * bump waits for the lock and is checked again, so the answer holds until the caller bumps.
 */
export async function lockIfRoom<T extends LockedTable>(
  tx: Kysely<DB>,
  table: T,
  keyColumn: keyof DB[T] & string,
  key: string,
  deltas: Deltas<T>,
): Promise<boolean> {
  const grown: Record<string, number | undefined> = deltas;
  const bounds = Object.entries(grown)
    .filter((e): e is [string, number] => e[1] !== undefined && e[1] > 0)
    .map(([col, d]) => sql` and ${sql.ref(col)} <= ${Number.MAX_SAFE_INTEGER - d}`);
  const result = await sql`update ${sql.table(table)} set ${sql.ref(keyColumn)} = ${sql.ref(keyColumn)}
    where ${sql.ref(keyColumn)} = ${key}${sql.join(bounds, sql``)}`.execute(tx);
  return Number(result.numAffectedRows ?? 0) > 0;
}

/** Adds to a user's counters within one group (they only grow), creating the row on first use. */
export async function bumpUserGroup(
  tx: Kysely<DB>,
  userId: string,
  groupId: string,
  deltas: Deltas<'user_group_stats'>,
): Promise<void> {
  const entries = Object.entries(deltas);
  if (entries.length === 0) return;
  const cols = entries.map(([c]) => sql.ref(c));
  const values = entries.map(([, d]) => sql`${d}`);
  const sets = entries.map(
    ([c]) => sql`${sql.ref(c)} = ${sql.ref(`user_group_stats.${c}`)} + ${sql.ref(`excluded.${c}`)}`,
  );
  await sql`insert into user_group_stats (user_id, group_id, ${sql.join(cols)})
    values (${userId}, ${groupId}, ${sql.join(values)})
    on conflict (user_id, group_id) do update set ${sql.join(sets)}`.execute(tx);
}
