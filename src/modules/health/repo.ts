// The database's side of the readiness check.
import type SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { SQLITE_BUSY_MS, type Db } from '../../db/connect.js';

/** Resolves once the database answers a trivial query. */
export async function pingDb(db: Db): Promise<void> {
  await sql`select 1`.execute(db.k);
}

/**
 * How long the readiness probe waits for another process's write lock on SQLite. The probe runs
 * synchronously (better-sqlite3), so this is also the longest it holds up the event loop.
 */
const WRITE_PROBE_MS = 100;

/**
 * Resolves when the database answers and, on SQLite, can take a write: a full disk, a read-only
 * file or a write lock held elsewhere answer `select 1` but refuse every write.
 */
export async function dbReady(db: Db): Promise<void> {
  await pingDb(db);
  if (db.native.dialect === 'sqlite') probeWrite(db.native.writer);
}

/**
 * The probe's statements, prepared once per writer connection rather than on every /readyz. The
 * busy_timeout pragmas are not among them: SQLite applies a PRAGMA's setting when it compiles the
 * statement, so a prepared one run again would not set it again.
 */
const probes = new WeakMap<SQLite.Database, { begin: SQLite.Statement; rollback: SQLite.Statement }>();

function probeWrite(writer: SQLite.Database): void {
  // A transaction open on the writer is a write under way: it can write.
  if (writer.inTransaction) return;
  let probe = probes.get(writer);
  if (probe === undefined) {
    probe = { begin: writer.prepare('BEGIN IMMEDIATE'), rollback: writer.prepare('ROLLBACK') };
    probes.set(writer, probe);
  }
  // Taking the write lock and letting it go writes nothing; all within one synchronous turn, so no
  // other statement runs on the writer meanwhile.
  writer.pragma(`busy_timeout = ${String(WRITE_PROBE_MS)}`);
  try {
    probe.begin.run();
    probe.rollback.run();
  } finally {
    writer.pragma(`busy_timeout = ${String(SQLITE_BUSY_MS)}`);
  }
}
