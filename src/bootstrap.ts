// Opens the store, migrates it and wires the services: shared by the server and the CLI. A store
// or Redis that cannot be reached stops the start with one line naming the setting to fix.
import type { Kysely } from 'kysely';
import type { Config } from './config.js';
import { openDb, type Db } from './db/connect.js';
import { migrate } from './db/migrate.js';
import type { DB } from './db/types.js';
import { SecretBox } from './lib/crypto.js';
import { within } from './lib/deadline.js';
import { type EncryptionKey, KeySettingError, readEncryptionKey, saveKeyFile } from './lib/keys.js';
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

/** The address without its password, to name in a message. */
export function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

async function reachDb(url: string): Promise<Db> {
  let db: Db | undefined;
  try {
    db = await within(openDb(url), PROBE_MS);
    await within(pingDb(db), PROBE_MS);
    return db;
  } catch (e) {
    await db?.close().catch(() => undefined);
    throw new StartupError(`DATABASE_URL: cannot reach the database at ${withoutPassword(url)} (${reason(e)})`);
  }
}

async function reachRedis(config: Config): Promise<SharedState> {
  const shared = await openSharedState(config.redisUrl);
  try {
    await shared.redis?.connected(PROBE_MS);
    return shared;
  } catch (e) {
    await shared.close();
    throw new StartupError(`REDIS_URL: cannot reach Redis at ${withoutPassword(config.redisUrl ?? '')} (${reason(e)})`);
  }
}

/**
 * Migrates (answering the migrations applied), naming a store left by a newer version (Kysely
 * reports it as "corrupted migrations"): for the server's start and the CLI's migrate alike.
 */
export async function migrateStore(db: Db): Promise<string[]> {
  try {
    return await migrate(db);
  } catch (e) {
    const unknown = e instanceof Error ? /previously executed migration (\S+) is missing/.exec(e.message) : null;
    if (unknown === null) throw e;
    throw new StartupError(
      `DATABASE_URL: the database was migrated by a newer version of the platform (migration ${unknown[1] ?? ''} is unknown to this one); upgrade the platform to that version`,
    );
  }
}

const KEY_CHECK = 'encryption_key_check';
const KEY_CHECK_PLAIN = 'open-platform encryption key check';

/** Whether `sealed` opens with `box`: a wrong key fails GCM's authentication. */
function opens(box: SecretBox, sealed: string): boolean {
  try {
    box.open(sealed);
    return true;
  } catch {
    return false;
  }
}

/**
 * Refuses a key other than the one the store's secrets were sealed with: started with it, the
 * platform looked ready but answered 500 for every bot and delivered no webhook. The store keeps a
 * value sealed on its first start and checks it on every start; a store from before the check gets
 * it once one of its secrets opens. A key file that did not exist is written only once it is
 * accepted, so a wrong KEY_FILE path leaves nothing behind. Answers false when another process
 * starting beside this one wrote the key file first: that key is the one to check.
 */
async function checkEncryptionKey(db: Kysely<DB>, found: EncryptionKey): Promise<boolean> {
  const box = new SecretBox(found.key);
  const which =
    found.setting === 'ENCRYPTION_KEY'
      ? 'ENCRYPTION_KEY does not open'
      : found.unsaved
        ? `there is no key file at ${found.path} to open`
        : `the key in ${found.path} does not open`;
  const wrong = new StartupError(
    `${found.setting}: ${which} the secrets in the database; set KEY_FILE (an absolute path) or ENCRYPTION_KEY to the key this database was created with`,
  );
  const stored = await db.selectFrom('meta').select('value').where('key', '=', KEY_CHECK).executeTakeFirst();
  if (stored !== undefined) {
    if (!opens(box, stored.value)) throw wrong;
    return true;
  }
  const secret =
    (await db.selectFrom('apps').select('app_secret_enc as sealed').limit(1).executeTakeFirst()) ??
    (await db
      .selectFrom('bots')
      .select('webhook_key_enc as sealed')
      .where('webhook_key_enc', 'is not', null)
      .limit(1)
      .executeTakeFirst());
  if (secret?.sealed != null && !opens(box, secret.sealed)) throw wrong;
  if (found.unsaved && !saveKeyFile(found.path, found.key)) return false;
  await db
    .insertInto('meta')
    .values({ key: KEY_CHECK, value: box.seal(KEY_CHECK_PLAIN) })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  // Another instance starting on a new store at the same moment may have sealed it first.
  const winner = await db.selectFrom('meta').select('value').where('key', '=', KEY_CHECK).executeTakeFirstOrThrow();
  if (!opens(box, winner.value)) throw wrong;
  return true;
}

/** The key for secrets at rest, checked against the store. */
async function encryptionKey(db: Kysely<DB>, config: Config): Promise<Buffer> {
  try {
    const found = readEncryptionKey(config);
    if (await checkEncryptionKey(db, found)) return found.key;
    // Another process wrote its key file first: both use that one.
    const written = readEncryptionKey(config);
    await checkEncryptionKey(db, written);
    return written.key;
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
  const db = await reachDb(config.databaseUrl);
  let shared: SharedState | undefined;
  try {
    shared = await reachRedis(config);
    await migrateStore(db);
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
}

/**
 * Connections the kernel queues before the server accepts them (it caps this at somaxconn).
 * After a restart every polling bot connects at once: with Node's 511 the queue overflows, and
 * each handshake dropped is retried by its client only after 1, 3, 7... seconds (measured: 10,000
 * polls opening together left hundreds still unanswered a minute later).
 */
const LISTEN_BACKLOG = 4096;

/** Listens on HOST:PORT; an address in use or not allowed becomes a StartupError. */
export async function listen(app: Listener, config: Config): Promise<string> {
  try {
    return await app.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG });
  } catch (e) {
    const code = e instanceof Error && 'code' in e ? e.code : undefined;
    const where = `${config.host}:${config.port}`;
    if (code === 'EADDRINUSE')
      throw new StartupError(`PORT: ${where} is already in use; set PORT (or HOST) to a free one`);
    if (code === 'EACCES') throw new StartupError(`PORT: not allowed to listen on ${where}; set PORT above 1023`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
      throw new StartupError(`HOST: ${config.host} is not an address of this machine; set HOST (e.g. 0.0.0.0)`);
    }
    throw e;
  }
}
