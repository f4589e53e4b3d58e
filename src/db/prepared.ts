// Hot-path reads: the query is built with Kysely once, at start-up, then run through the
// dialect's own prepared statement (better-sqlite3 Statement, or a named pg statement), so a
// request pays neither query building nor SQL parsing.
import { createHash } from 'node:crypto';
import { sql, type Compilable, type InferResult } from 'kysely';
import type { Db } from './connect.js';

const MARK = '\u0000arg:';

/** A placeholder for the i-th argument of a prepared query, used where a value goes. */
export const arg = (i: number): string => `${MARK}${i}`;

/** A numeric argument slot, for LIMIT, OFFSET and numeric columns. */
export const numArg = (i: number) => sql<number>`${arg(i)}`;

export interface Prepared<R> {
  first(args: readonly unknown[]): Promise<R | undefined>;
  all(args: readonly unknown[]): Promise<R[]>;
}

export function prepare<Q extends Compilable>(db: Db, query: Q): Prepared<InferResult<Q>[number]> {
  type R = InferResult<Q>[number];
  const compiled = query.compile();
  // Each compiled parameter is either an argument slot or a constant baked into the query.
  const slots = compiled.parameters.map((p) =>
    typeof p === 'string' && p.startsWith(MARK)
      ? { arg: Number(p.slice(MARK.length)), value: undefined }
      : { arg: -1, value: p },
  );
  const bind = (args: readonly unknown[]): unknown[] => slots.map((s) => (s.arg >= 0 ? args[s.arg] : s.value));
  const native = db.native;

  if (native.dialect === 'sqlite') {
    const statement = native.sqlite.prepare<unknown[], R>(compiled.sql);
    return {
      first: (args) => Promise.resolve(statement.get(...bind(args))),
      all: (args) => Promise.resolve(statement.all(...bind(args))),
    };
  }
  const name = `p_${createHash('sha1').update(compiled.sql).digest('hex').slice(0, 16)}`;
  const run = async (args: readonly unknown[]): Promise<R[]> =>
    (await native.pool.query<R & object>({ name, text: compiled.sql, values: bind(args) })).rows;
  return {
    first: async (args) => (await run(args))[0],
    all: run,
  };
}
