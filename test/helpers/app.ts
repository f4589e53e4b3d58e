// Starts the whole app in-process on a fresh store (an in-memory SQLite database, or a private
// PostgreSQL schema dropped afterwards) for one test suite.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openDb } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import type { App } from '../../src/http/types.js';
import type { Clock } from '../../src/lib/clock.js';
import type { SharedState } from '../../src/lib/shared-state.js';
import { ensureAdminToken } from '../../src/modules/admin/index.js';
import { createServices, type Services } from '../../src/services.js';
import { PG_URL, storesUnderTest, type StoreKind } from './stores.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };

export class FakeClock implements Clock {
  constructor(public ms = Date.UTC(2026, 10, 22, 12, 0, 0)) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface TestApp {
  store: StoreKind;
  app: App;
  services: Services;
  clock: Clock;
  close(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  clock?: Clock;
  shared?: SharedState;
  /** Reuse a PostgreSQL schema (several instances on one store). */
  schema?: string;
  /** Reuse a SQLite file (several instances on one store); by default each app gets its own. */
  sqliteFile?: string;
  /** PostgreSQL only: another database than PG_URL's (a test that terminates its connections). */
  databaseUrl?: string;
  /** Instances sharing a store must share the key of its secrets. */
  encryptionKey?: Buffer;
}

export async function startTestApp(store: StoreKind, options: StartOptions = {}): Promise<TestApp> {
  const schema = options.schema ?? `t_${randomBytes(6).toString('hex')}`;
  // A file, not :memory:, so SQLite runs as in production: a writer and a read-only connection.
  const ownDir =
    store === 'sqlite' && options.sqliteFile === undefined ? mkdtempSync(join(tmpdir(), 'op-test-')) : undefined;
  const url =
    store === 'sqlite'
      ? `sqlite:${options.sqliteFile ?? join(ownDir ?? '', 'platform.db')}`
      : (options.databaseUrl ?? PG_URL);
  const config: Config = loadConfig({ DATABASE_URL: url, ADMIN_TOKEN, RATE_LIMITS: 'off', ...options.env });
  const db = await openDb(url, store === 'postgres' ? { schema } : {});
  await migrate(db);
  const services = createServices({
    config,
    db,
    encryptionKey: options.encryptionKey ?? randomBytes(32),
    // As at start: the hash of ADMIN_TOKEN (env may set another than the default).
    adminTokenHash: (await ensureAdminToken(db.k, config.adminToken)).hash,
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
    ...(options.shared !== undefined ? { shared: options.shared } : {}),
  });
  const app = await buildApp(services);
  return {
    store,
    app,
    services,
    clock: services.clock,
    close: async () => {
      await app.close();
      await services.shared.close();
      await db.close();
      if (store === 'postgres' && options.schema === undefined && options.databaseUrl === undefined)
        await dropSchema(schema);
      if (ownDir !== undefined) rmSync(ownDir, { recursive: true, force: true });
    },
  };
}

/**
 * One store that several instances of a suite open in turn (a restart, a second instance): its
 * SQLite file or PostgreSQL schema, and its key of secrets; removed after the suite.
 */
export function storeAcrossInstances(
  store: StoreKind,
): Required<Pick<StartOptions, 'sqliteFile' | 'schema' | 'encryptionKey'>> {
  const dir = mkdtempSync(join(tmpdir(), 'op-instances-'));
  const shared = {
    sqliteFile: join(dir, 'platform.db'),
    schema: `t_${randomBytes(6).toString('hex')}`,
    encryptionKey: randomBytes(32),
  };
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    if (store === 'postgres') await dropSchema(shared.schema);
  });
  return shared;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * Registers `body` once per store under test, each with its own app (started before, closed
 * after). `t()` gives the running app inside tests.
 */
export async function describeStores(
  name: string,
  body: (t: () => TestApp) => void,
  options: StartOptions | (() => StartOptions) = {},
): Promise<void> {
  for (const store of await storesUnderTest()) {
    await describe(`${name} [${store}]`, () => {
      withApp(store, options, body);
    });
  }
}

/** Inside a suite: an app on `store` started before its tests and closed after them. */
function withApp(
  store: StoreKind,
  options: StartOptions | (() => StartOptions),
  body: (t: () => TestApp) => void,
): void {
  let current: TestApp | undefined;
  before(async () => {
    current = await startTestApp(store, typeof options === 'function' ? options() : options);
  });
  after(async () => current?.close());
  body(() => {
    if (current === undefined) throw new Error('test app not started');
    return current;
  });
}

/** A suite of PostgreSQL's alone (its row locks, its isolation), skipped with a line saying why when it is not reachable. */
export async function describePostgres(
  name: string,
  body: (t: () => TestApp) => void,
  options: StartOptions = {},
): Promise<void> {
  const skip = (await storesUnderTest()).includes('postgres')
    ? false
    : 'PostgreSQL not reachable (set TEST_DATABASE_URL)';
  await describe(`${name} (PostgreSQL)`, { skip }, () => {
    withApp('postgres', options, body);
  });
}

/** describeStores on a FakeClock of the suite's own (one for all its stores), handed to `body` to read and advance. */
export async function describeStoresOnFakeClock(
  name: string,
  body: (t: () => TestApp, clock: FakeClock) => void,
  options: Omit<StartOptions, 'clock'> = {},
): Promise<void> {
  const clock = new FakeClock();
  await describeStores(
    name,
    (t) => {
      body(t, clock);
    },
    { ...options, clock },
  );
}

/** Rows in the outbox: a refused send leaves the count as it was. */
export async function outboxRows(t: TestApp): Promise<number> {
  const row = await t.services.db.k
    .selectFrom('outbox_messages')
    .select((e) => e.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
