// A migrated SQLite store in a folder of its own whose statements, as the repositories build and
// send them, are captured to be explained: for tests that a query is served by an index.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { openDb } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import type { DB } from '../../src/db/types.js';

export interface PlannedStore {
  /** Sends statements on the store's writer, each one captured in `run`. */
  k: Kysely<DB>;
  run: CompiledQuery[];
  /** SQLite's EXPLAIN QUERY PLAN of a captured statement: its lines' details. */
  plan: (q: CompiledQuery) => Promise<string[]>;
}

export async function withPlannedStore(name: string, body: (s: PlannedStore) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `op-${name}-`));
  const db = await openDb(`sqlite:${join(dir, 'platform.db')}`);
  try {
    await migrate(db);
    if (db.native.dialect !== 'sqlite') throw new Error('a SQLite store');
    const run: CompiledQuery[] = [];
    const k = new Kysely<DB>({
      dialect: new SqliteDialect({ database: db.native.writer }),
      log: (e) => void run.push(e.query),
    });
    const plan = async (q: CompiledQuery) =>
      (
        await db.k.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]))
      ).rows.map((r) => r.detail);
    await body({ k, run, plan });
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
