// Fresh stores for bench servers: a SQLite file in a temporary directory, or a PostgreSQL database
// created for the run and dropped afterwards on the server BENCH_PG_URL names (default
// TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type StoreKind = 'sqlite' | 'postgres';

export const PG_URL =
  process.env.BENCH_PG_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** The Redis that several instances share (BENCH_REDIS_URL, default TEST_REDIS_URL, else local). */
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export const storeKind = (v: unknown): StoreKind => (v === 'postgres' ? 'postgres' : 'sqlite');

async function onServer(serverUrl: string, sqlText: string): Promise<void> {
  // Loaded on use: every bench server shares this bundle, and on SQLite production never loads pg.
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sqlText);
  } finally {
    await client.end();
  }
}

export interface FreshStore {
  /** DATABASE_URL of the store. */
  url: string;
  /** The store in words, for notes. */
  where: string;
  remove(): Promise<void>;
}

/** A new store of `kind`; a PostgreSQL one is a database created on `serverUrl` (default PG_URL). */
export async function freshStore(kind: StoreKind, tag: string, serverUrl = PG_URL): Promise<FreshStore> {
  if (kind === 'postgres') {
    const name = `bench_${tag}_${randomBytes(6).toString('hex')}`;
    await onServer(serverUrl, `CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      where: `PostgreSQL database ${name}`,
      // WITH (FORCE): a server process killed mid-run may leave connections behind.
      remove: () => onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), `bench-${tag}-`));
  return {
    url: `sqlite:${join(dir, 'platform.db')}`,
    where: `SQLite file in ${dir}`,
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}
