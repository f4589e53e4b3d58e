// Set-based statements for the event pipeline: a batch's rows travel as ONE JSON parameter, read
// back as a table (json_each or jsonb_each on SQLite, json_array_elements on PostgreSQL). So one
// SQL text serves any number of rows (compiled once: connect.ts caches SQLite statements by text),
// and neither SQLite's variable limit nor PostgreSQL's 65,535 parameters can be reached.
import { CompiledQuery } from 'kysely';
import type { Dialect } from '../../db/connect.js';
import type { BatchContext } from './define.js';

export type ColumnType = 'text' | 'int';

/** The SQL of one statement on each store, built once at start-up. */
export interface Statement {
  readonly sqlite: string;
  readonly postgres: string;
}

/**
 * Builds `text` for both stores. `rows(columns)` is a derived table of the rows given as one JSON
 * parameter (arrays, values in `columns` order) with `ord`, each row's position; `list(name)` is
 * the same for one text column given as a flat JSON array (`jsonList`), which spares reading each
 * value out of a one-element array; `?` marks a parameter (numbered for PostgreSQL).
 */
export function statement(
  text: (rows: (columns: Record<string, ColumnType>) => string, list: (name: string) => string) => string,
): Statement {
  const forDialect = (dialect: Dialect): string => {
    const list = (name: string): string =>
      dialect === 'sqlite'
        ? `(SELECT key AS ord, value AS ${name} FROM json_each(?))`
        : `(SELECT t.ord, t.v AS ${name} FROM json_array_elements_text(?::json) WITH ORDINALITY AS t(v, ord))`;
    const rows = (columns: Record<string, ColumnType>): string => {
      const cols = Object.entries(columns);
      if (dialect === 'sqlite') {
        const picks = cols.map(([name], i) => `value->>${i} AS ${name}`).join(', ');
        // jsonb_each hands each row over as binary JSON, which ->> reads in place; json_each would
        // turn every row back into text for ->> to parse again: 6-14% of the CPU of an ingest batch.
        return `(SELECT key AS ord, ${picks} FROM jsonb_each(?))`;
      }
      const picks = cols
        .map(([name, type], i) => `(t.e->>${i})::${type === 'int' ? 'bigint' : 'text'} AS ${name}`)
        .join(', ');
      return `(SELECT t.ord, ${picks} FROM json_array_elements(?::json) WITH ORDINALITY AS t(e, ord))`;
    };
    const sql = text(rows, list);
    let n = 0;
    return dialect === 'sqlite' ? sql : sql.replace(/\?/g, () => `$${++n}`);
  };
  return { sqlite: forDialect('sqlite'), postgres: forDialect('postgres') };
}

/** Rows as the JSON parameter of `rows(...)`. */
export const json = (rows: readonly (readonly (string | number | null)[])[]): string => JSON.stringify(rows);

/** Text values as the JSON parameter of `list(...)`. */
export const jsonList = (values: Iterable<string>): string => JSON.stringify([...values]);

/** Runs `s` in the batch's transaction; `params` in the order their `?` appear. */
export async function run<R>(ctx: BatchContext, s: Statement, params: readonly unknown[]): Promise<R[]> {
  const text = ctx.dialect === 'sqlite' ? s.sqlite : s.postgres;
  return (await ctx.tx.executeQuery<R>(CompiledQuery.raw(text, [...params]))).rows;
}

/** Adds `delta` to the sum kept for `key` (counter deltas are summed per row before one update). */
export function addTo<K>(sums: Map<K, number>, key: K, delta: number): void {
  sums.set(key, (sums.get(key) ?? 0) + delta);
}
