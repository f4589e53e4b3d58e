// Opens the store, migrates it and wires the services: shared by the server and the CLI. A store
// or Redis that cannot be reached stops the start with one line naming the setting to fix.
import type { Kysely } from 'kysely';
import { type Config, withoutPassword } from './config.js';
import { openDb, type Db, type OpenOptions } from './db/connect.js';
import { migrate } from './db/migrate.js';
import type { DB } from './db/types.js';
import { within } from './lib/deadline.js';
import { errorCode } from './lib/error-code.js';
import { checkedEncryptionKey } from './encryption-key.js';
import { KeySettingError } from './lib/keys.js';
import { openSharedState, type SharedState } from './lib/shared-state.js';
import { type AdminToken, ensureAdminToken } from './modules/admin/index.js';
import { pingDb } from './modules/health/index.js';
import { createServices, type Services } from './services.js';

/** How long start-up waits for the database or Redis to answer. */
const PROBE_MS = 10_000;

/** A start-up failure the operator fixes through a setting: its message is the whole report. */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

const reason = (e: unknown): string => {
  if (e instanceof AggregateError && e.errors.length > 0) return reason(e.errors[0]);
  return e instanceof Error ? e.message || e.name : String(e);
};

/** SQLite refusing a write: the file or its folder is read-only (better-sqlite3's code, e.g. SQLITE_READONLY_DBMOVED). */
const readOnly = (e: unknown): boolean => errorCode(e)?.startsWith('SQLITE_READONLY') === true;

const readOnlyStore = (url: string, e: unknown): StartupError =>
  new StartupError(
    `DATABASE_URL: the database at ${withoutPassword(url)} is read-only (${reason(e)}); the platform must be able to write the file and its folder`,
  );

/** Opens the store and checks that it answers; a failure is one line naming DATABASE_URL. */
export async function reachDb(url: string, options: OpenOptions = {}): Promise<Db> {
  let db: Db | undefined;
  try {
    db = await within(openDb(url, options), PROBE_MS);
    await within(pingDb(db), PROBE_MS);
    return db;
  } catch (e) {
    await db?.close().catch(() => undefined);
    if (readOnly(e)) throw readOnlyStore(url, e);
    throw new StartupError(`DATABASE_URL: cannot reach the database at ${withoutPassword(url)} (${reason(e)})`);
  }
}

async function reachRedis(config: Config): Promise<SharedState> {
  const shared = await openSharedState(config.redisUrl, { prefix: config.redisPrefix });
  try {
    await shared.redis?.connected(PROBE_MS);
    return shared;
  } catch (e) {
    await shared.close();
    throw new StartupError(`REDIS_URL: cannot reach Redis at ${withoutPassword(config.redisUrl ?? '')} (${reason(e)})`);
  }
}

/**
 * Migrates the store at `url` (answering the migrations applied), naming a store left by a newer
 * version (Kysely reports it as "corrupted migrations") or one it may not write: for the server's
 * start and the CLI's migrate alike.
 */
export async function migrateStore(db: Db, url: string): Promise<string[]> {
  try {
    return await migrate(db);
  } catch (e) {
    if (readOnly(e)) throw readOnlyStore(url, e);
    const unknown = e instanceof Error ? /previously executed migration (\S+) is missing/.exec(e.message) : null;
    if (unknown === null) throw e;
    throw new StartupError(
      `DATABASE_URL: the database was migrated by a newer version of the platform (migration ${unknown[1] ?? ''} is unknown to this one); upgrade the platform to that version`,
    );
  }
}

/** The key for secrets at rest, checked against the store; a key that cannot be used stops the start. */
async function encryptionKey(db: Kysely<DB>, config: Config): Promise<Buffer> {
  try {
    return await checkedEncryptionKey(db, config);
  } catch (e) {
    throw e instanceof KeySettingError ? new StartupError(e.message) : e;
  }
}

export interface Booted {
  services: Services;
  adminToken: AdminToken;
  close(): Promise<void>;
}

export async function boot(config: Config): Promise<Booted> {
  const db = await reachDb(config.databaseUrl, { synchronous: config.sqliteSynchronous });
  let shared: SharedState | undefined;
  try {
    shared = await reachRedis(config);
    await migrateStore(db, config.databaseUrl);
    const key = await encryptionKey(db.k, config);
    const adminToken = await ensureAdminToken(db.k, config.adminToken);
    const services = createServices({
      config,
      db,
      shared,
      encryptionKey: key,
      adminTokenHash: adminToken.hash,
    });
    return {
      services,
      adminToken,
      close: async () => {
        await services.shared.close();
        await db.close();
      },
    };
  } catch (e) {
    await shared?.close();
    await db.close();
    throw e;
  }
}

interface Listener {
  listen(options: { port: number; host: string; backlog: number }): Promise<string>;
  log: { info(fields: object, message: string): void };
}

/**
 * Connections the kernel queues before the server accepts them (it caps this at somaxconn).
 * After a restart every polling bot connects at once: with Node's 511 the queue overflows, and
 * each handshake dropped is retried by its client only after 1, 3, 7... seconds (measured: 10,000
 * polls opening together left hundreds still unanswered a minute later).
 */
const LISTEN_BACKLOG = 4096;

/**
 * Listens on HOST:PORT; an address in use or not allowed becomes a StartupError. Once listening,
 * logs the Redis in use (password masked) and its REDIS_PREFIX: instances on different prefixes
 * share no nonces, rate limits or wake-ups and nothing else says so.
 */
export async function listen(app: Listener, config: Config): Promise<string> {
  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG });
  } catch (e) {
    const code = errorCode(e);
    const where = `${config.host}:${config.port}`;
    if (code === 'EADDRINUSE')
      throw new StartupError(`PORT: ${where} is already in use; set PORT (or HOST) to a free one`);
    if (code === 'EACCES') throw new StartupError(`PORT: not allowed to listen on ${where}; set PORT above 1023`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
      throw new StartupError(`HOST: ${config.host} is not an address of this machine; set HOST (e.g. 0.0.0.0)`);
    }
    throw e;
  }
  if (config.redisUrl !== undefined) {
    app.log.info(
      { redis: withoutPassword(config.redisUrl), redisPrefix: config.redisPrefix },
      `shared state in Redis under REDIS_PREFIX "${config.redisPrefix}": every instance of this platform must use the same`,
    );
  }
  return address;
}
