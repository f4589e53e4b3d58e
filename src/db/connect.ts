// Opens the store named by DATABASE_URL: embedded SQLite (WAL) or PostgreSQL, both behind Kysely.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type SqliteDatabase } from 'kysely';
import type { Pool } from 'pg';
import { type CheckpointerOptions, WAL_KEPT_BYTES, WalCheckpointer } from './checkpointer.js';
import type { DB } from './types.js';

export type Dialect = 'sqlite' | 'postgres';
export type SqliteSynchronous = 'normal' | 'full';

export interface Db {
  readonly dialect: Dialect;
  readonly k: Kysely<DB>;
  /** PostgreSQL schema the connection works in (search_path); undefined for SQLite. */
  readonly schema: string | undefined;
  /**
   * Native handles for statements prepared once on hot paths (see prepared.ts). On SQLite those
   * reads use their own read-only connection, so they see committed data only, never the middle
   * of a transaction running on the writer; the writer runs them inside a transaction.
   */
  readonly native:
    { dialect: 'sqlite'; reader: SQLite.Database; writer: SQLite.Database } | { dialect: 'postgres'; pool: Pool };
  /** SQLite on a file: runs its WAL checkpoints on a worker thread while it is written heavily. */
  readonly checkpointer?: WalCheckpointer;
  close(): Promise<void>;
}

/** How long a SQLite statement waits for another connection's write lock before SQLITE_BUSY. */
export const SQLITE_BUSY_MS = 5_000;

/**
 * PostgreSQL: a new connection that does not complete within this fails (the request answers 503)
 * instead of waiting forever on an unreachable server.
 */
const PG_CONNECT_MS = 5_000;
/**
 * PostgreSQL cancels a statement running longer. The longest legitimate ones (an ingest batch of
 * 1,000 events, a retention delete after a long outage) take well under a second to seconds;
 * a minute leaves wide room. Migrations lift it (migrate.ts): an index build may take longer.
 */
export const PG_STATEMENT_MS = 60_000;
/**
 * PostgreSQL ends a session that sits this long inside a transaction without a statement. Ours
 * never pause for more than a few milliseconds between statements, so only an instance that froze
 * or lost power mid-transaction hits it: without it, the locks it held (the outbox's commit order,
 * a bot's or an account's row) would stop every instance's writes until TCP gave up, hours later.
 */
export const PG_IDLE_IN_TRANSACTION_MS = 10_000;

const closedInUse = (e: Error) => {
  process.emitWarning(`PostgreSQL closed a connection in use: ${e.message}`, { code: 'DB_IN_USE_CLOSED' });
};

const INT8 = 20;
const NUMERIC = 1700;

export interface OpenOptions {
  /** PostgreSQL only: work inside this schema (created when missing); tests use one schema each. */
  schema?: string;
  poolSize?: number;
  /** SQLite only: when WAL checkpoints move to a worker thread (checkpointer.ts). */
  checkpoints?: CheckpointerOptions;
  /** SQLite only: whether a commit waits for the disk (SQLITE_SYNCHRONOUS; openSqlite says why). */
  synchronous?: SqliteSynchronous;
  /** PostgreSQL only: PG_IDLE_IN_TRANSACTION_MS but in tests, which cannot wait that long. */
  idleInTransactionMs?: number;
}

export async function openDb(url: string, options: OpenOptions = {}): Promise<Db> {
  if (url.startsWith('sqlite:')) {
    return openSqlite(url.slice('sqlite:'.length), options.checkpoints, options.synchronous ?? 'normal');
  }
  return openPostgres(url, options);
}

/** Kysely prepares every statement anew; reusing them is safe because it runs one at a time. */
function cachingStatements(sqlite: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql) {
      let statement = cache.get(sql);
      if (statement === undefined) {
        if (cache.size >= 1000) cache.clear();
        statement = sqlite.prepare(sql);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

function openSqlite(path: string, checkpoints: CheckpointerOptions | undefined, synchronous: SqliteSynchronous): Db {
  const memory = path === ':memory:';
  if (!memory) mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  // First, so that switching a fresh file to WAL waits for another process opening it too.
  sqlite.pragma(`busy_timeout = ${String(SQLITE_BUSY_MS)}`);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL (the default, SQLite's advice for WAL): a commit survives the process crashing, and the
  // WAL reaches the disk at checkpoints, so a power loss or an OS crash may undo the last commits,
  // already answered (a transfer, a send whose sequence number and Update id the next commits
  // would hand out again). FULL waits for the disk at every commit, as PostgreSQL's default does:
  // measured on the bench, a quarter fewer transfers and sends a second and 9% less ingest.
  sqlite.pragma(`synchronous = ${synchronous}`);
  sqlite.pragma('foreign_keys = ON');
  // Measured on the ingest bench (batches of 1000 events dirty ~300 pages each): a 16 MB page cache
  // (the default is 2 MB) keeps the hot index pages, and checkpointing every 16,000 WAL pages
  // (64 MB; the default is 1,000) copies each hot page back once per many batches, and syncs as
  // seldom, instead of every few batches. Neither changes durability (synchronous, above); the
  // cache grows only with the pages actually read, so a small store stays small.
  sqlite.pragma('cache_size = -16384');
  sqlite.pragma('wal_autocheckpoint = 16000');
  sqlite.pragma(`journal_size_limit = ${String(WAL_KEPT_BYTES)}`);
  // A statement that writes many rows inside a transaction (every set-based statement of an event
  // batch) keeps the original of each page it changes in a statement journal, so that it can be
  // undone alone; past 64 KB that journal is a temporary file, one write per page (the ingest
  // bench's like insert touches ~500 pages). In memory it costs ~1.8 ms less CPU per 1,000 events,
  // and the journal is freed when the statement ends. Sorts that need temporary storage stay in
  // memory too: the application's queries are indexed, a migration building an index on a very
  // large table would sort it in memory.
  sqlite.pragma('temp_store = MEMORY');
  // An in-memory database exists on one connection only; it reads through the writer.
  const reader = memory ? sqlite : new SQLite(path, { readonly: true, fileMustExist: true });
  if (!memory) reader.pragma(`busy_timeout = ${String(SQLITE_BUSY_MS)}`);
  const k = new Kysely<DB>({ dialect: new SqliteDialect({ database: cachingStatements(sqlite) }) });
  const checkpointer = memory ? undefined : new WalCheckpointer(path, checkpoints);
  return {
    dialect: 'sqlite',
    k,
    schema: undefined,
    native: { dialect: 'sqlite', reader, writer: sqlite },
    checkpointer,
    // The checkpoint worker's and the reader's first: only the last connection to close
    // checkpoints the WAL into the file and deletes it, and a read-only one does neither. A -wal
    // file left beside the database would be replayed onto a backup copied in its place (README,
    // Backups).
    close: async () => {
      await checkpointer?.close();
      if (reader !== sqlite) reader.close();
      await k.destroy();
      // Kysely closes the writer only if it ever used it.
      if (sqlite.open) sqlite.close();
    },
  };
}

async function openPostgres(
  url: string,
  { schema, poolSize = 10, idleInTransactionMs = PG_IDLE_IN_TRANSACTION_MS }: OpenOptions,
): Promise<Db> {
  // Loaded here, not at the top, so a process on SQLite (the default) never loads the driver. The
  // bundle (scripts/bundle.mjs) keeps a dynamic import of a package as it is; one of a local module
  // would be inlined with its imports hoisted to the top, so the import stays here.
  const { default: pg } = await import('pg');
  // Counters and instants are bigint columns; they stay far below 2^53, so read them as numbers.
  const types = new pg.TypeOverrides();
  types.setTypeParser(INT8, Number);
  types.setTypeParser(NUMERIC, Number);
  if (schema !== undefined) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schema.replace(/"/g, '')}"`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    types,
    connectionTimeoutMillis: PG_CONNECT_MS,
    statement_timeout: PG_STATEMENT_MS,
    idle_in_transaction_session_timeout: idleInTransactionMs,
    ...(schema !== undefined ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle pooled connection that the server closes (a restart, pg_terminate_backend) emits
  // 'error' on the pool; unheard, it would end the process. The pool has already dropped that
  // client and opens a new one on next use, so a warning is all it needs. The message is the
  // server's (no address or password).
  pool.on('error', (e) => {
    process.emitWarning(`PostgreSQL closed an idle pooled connection: ${e.message}`, { code: 'DB_IDLE_CLOSED' });
  });
  // The pool listens for a client's 'error' only while it is idle. One checked out for a
  // transaction, between two statements, when the server ends its session (a restart, the timeout
  // above) would emit it unheard and end the process; heard, the transaction's next statement
  // fails (503) and the pool drops the client when it comes back.
  pool.on('acquire', (client) => client.on('error', closedInUse));
  pool.on('release', (_error, client) => client.off('error', closedInUse));
  const k = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    dialect: 'postgres',
    k,
    schema: schema ?? 'public',
    native: { dialect: 'postgres', pool },
    close: () => k.destroy(),
  };
}
