// Hot-path reads: the query is built with Kysely once, at start-up, then run through the
// dialect's own prepared statement (better-sqlite3 Statement, or a named pg statement), so a
// request pays neither query building nor SQL parsing.
import { createHash } from 'node:crypto';
import { CompiledQuery, sql, type Compilable, type InferResult, type Kysely, type QueryResult } from 'kysely';
import type SQLite from 'better-sqlite3';
import type { DB } from './types.js';
import type { Db } from './connect.js';

const MARK = '\u0000arg:';

/** A placeholder for the i-th argument of a prepared query, used where a value goes. */
export const arg = (i: number): string => `${MARK}${i}`;

/** An argument slot typed for its column (numbers for LIMIT, OFFSET and numeric columns, enums). */
export const typedArg = <T>(i: number) => sql<T>`${arg(i)}`;
export const numArg = (i: number) => typedArg<number>(i);

export interface Prepared<R> {
  /**
   * Committed data, outside any transaction. On SQLite this is the read-only connection, whose
   * page cache is dropped whenever the writer commits: a read that precedes a write of the same
   * request goes through `run` inside that write's transaction instead. Never inside a write to
   * decide it: on SQLite it would miss the writes its transaction shares (db/work.ts).
   */
  first(args: readonly unknown[]): Promise<R | undefined>;
  all(args: readonly unknown[]): Promise<R[]>;
  /** Through `tx` (a transaction, or the store itself): writes, and reads of a transaction's own changes. */
  run(tx: Kysely<DB>, args: readonly unknown[]): Promise<QueryResult<R>>;
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
  const run = (tx: Kysely<DB>, args: readonly unknown[]) =>
    tx.executeQuery<R>(CompiledQuery.raw(compiled.sql, bind(args)));

  if (native.dialect === 'sqlite') {
    // Only reads are prepared on the read-only connection; writes go through `run`.
    const statement = /^\s*select/i.test(compiled.sql) ? native.reader.prepare<unknown[], R>(compiled.sql) : undefined;
    const reader = () => {
      if (statement === undefined) throw new Error('first() and all() are for select statements; use run()');
      return statement;
    };
    // Kysely holds the writer's one connection for a transaction from its begin to its commit, so
    // inside one the statement runs on that connection directly, as Kysely's driver would run it
    // (all() for statements that return rows, run() otherwise) but without its layers of promises:
    // about a fifth of a transfer's CPU. Outside a transaction it waits for the connection.
    let written: SQLite.Statement<unknown[], R> | undefined;
    const inTransaction = (args: readonly unknown[]): QueryResult<R> => {
      written ??= native.writer.prepare<unknown[], R>(compiled.sql);
      if (written.reader) return { rows: written.all(bind(args)) };
      const { changes, lastInsertRowid } = written.run(bind(args));
      return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
    };
    return {
      first: (args) => Promise.resolve(reader().get(...bind(args))),
      all: (args) => Promise.resolve(reader().all(...bind(args))),
      run: (tx, args) => (tx.isTransaction ? Promise.resolve(inTransaction(args)) : run(tx, args)),
    };
  }
  const name = `p_${createHash('sha1').update(compiled.sql).digest('hex').slice(0, 16)}`;
  const rows = async (args: readonly unknown[]): Promise<R[]> =>
    (await native.pool.query<R & object>({ name, text: compiled.sql, values: bind(args) })).rows;
  return {
    first: async (args) => (await rows(args))[0],
    all: rows,
    run,
  };
}

/** Where a read of prepared statements goes: to committed data, or through a transaction. */
export interface Reading {
  readonly tx: Kysely<DB> | undefined;
  one<R>(p: Prepared<R>, args: readonly unknown[]): Promise<R | undefined>;
}

/** Committed data, outside any transaction (`first`). */
export const committed: Reading = { tx: undefined, one: (p, args) => p.first(args) };

/** Through `tx`, so that the transaction's own writes, and on SQLite those it shares (db/work.ts), are seen. */
export const within = (tx: Kysely<DB>): Reading => ({ tx, one: async (p, args) => (await p.run(tx, args)).rows[0] });
