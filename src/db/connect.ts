// Opens the store named by DATABASE_URL: embedded SQLite (WAL) or PostgreSQL, both behind Kysely.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { DB } from './types.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  readonly dialect: Dialect;
  readonly k: Kysely<DB>;
  /** PostgreSQL schema the connection works in (search_path); undefined for SQLite. */
  readonly schema: string | undefined;
  /** The native handle, for statements prepared once on hot paths (see prepared.ts). */
  readonly native: { dialect: 'sqlite'; sqlite: SQLite.Database } | { dialect: 'postgres'; pool: pg.Pool };
  close(): Promise<void>;
}

const INT8 = 20;
const NUMERIC = 1700;

export interface OpenOptions {
  /** PostgreSQL only: work inside this schema (created when missing); tests use one schema each. */
  schema?: string;
  poolSize?: number;
}

export async function openDb(url: string, options: OpenOptions = {}): Promise<Db> {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length));
  return openPostgres(url, options);
}

function openSqlite(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const k = new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) });
  return {
    dialect: 'sqlite',
    k,
    schema: undefined,
    native: { dialect: 'sqlite', sqlite },
    close: () => k.destroy(),
  };
}

async function openPostgres(url: string, { schema, poolSize = 10 }: OpenOptions): Promise<Db> {
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
    ...(schema !== undefined ? { options: `-c search_path=${schema}` } : {}),
  });
  const k = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    dialect: 'postgres',
    k,
    schema: schema ?? 'public',
    native: { dialect: 'postgres', pool },
    close: () => k.destroy(),
  };
}
