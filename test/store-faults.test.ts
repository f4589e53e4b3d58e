// The store failing under a running process: PostgreSQL closing the pool's connections, a SQLite
// migration cut short or raced by a second process, and a SQLite store that cannot be written.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sql, type Migration } from 'kysely';
import pg from 'pg';
import { boot } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { openDb, PG_IDLE_IN_TRANSACTION_MS, type Db } from '../src/db/connect.js';
import { migrate, migrations } from '../src/db/migrate.js';
import { Errors } from '../src/errors.js';
import { toAppError } from '../src/http/errors.js';
import { pingDb } from '../src/modules/health/index.js';
import { adminHeaders, dropSchema, startTestApp, type TestApp } from './helpers/app.js';
import { hiddenFields, openAuthorize } from './helpers/authorize.js';
import { createApp, createBot, createSessionCookie, createUsers } from './helpers/factories.js';
import { Proc } from './helpers/process.js';
import { PG_URL, storesUnderTest } from './helpers/stores.js';

const BOUNDED = { timeout: 60_000 };
const CB = 'https://shop.example/cb';
const CHILD = fileURLToPath(new URL('./helpers/migrate-child.ts', import.meta.url));
const hasPostgres = (await storesUnderTest()).includes('postgres');

const tables = (db: Db) =>
  db.native.dialect === 'sqlite'
    ? db.native.writer.prepare<[], { name: string }>("select name from sqlite_master where type = 'table'").all()
    : [];

describe('SQLite migrations', () => {
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'op-migrate-'));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('a run that fails part-way leaves the store untouched, and the next start applies everything', async () => {
    const db = await openDb(`sqlite:${join(dir, 'failed.db')}`);
    try {
      let fail = true;
      // Between the first migration and the second: what a process killed mid-run leaves behind.
      const midway: Migration = {
        up: async (k) => {
          await k.schema.createTable('midway').addColumn('x', 'integer').execute();
          if (fail) throw new Error('cut short');
        },
      };
      const list = { ...migrations('sqlite'), '0001_z_midway': midway };
      await assert.rejects(migrate(db, list), /cut short/);
      assert.deepEqual(tables(db), [], 'no table of the failed run remains');
      fail = false;
      const applied = await migrate(db, list);
      assert.deepEqual(applied, Object.keys(list).sort());
    } finally {
      await db.close();
    }
  });

  it('two processes migrating one fresh file at once both succeed, each migration applied once', BOUNDED, async () => {
    const file = join(dir, 'raced.db');
    const children = [0, 1].map(
      () => new Proc(spawn(process.execPath, ['--import', 'tsx', CHILD, file], { stdio: ['pipe', 'pipe', 'pipe'] })),
    );
    await Promise.all(children.map((c) => c.waitFor(/^open$/m)));
    for (const c of children) c.child.stdin?.write('go\n');
    assert.deepEqual(await Promise.all(children.map((c) => c.exited)), [0, 0], children.map((c) => c.out).join('\n'));
    const applied = children.map((c) => JSON.parse(/^applied (.*)$/m.exec(c.out)?.[1] ?? 'null') as string[]);
    const all = Object.keys(migrations('sqlite'));
    assert.deepEqual(
      [...applied].sort((a, b) => a.length - b.length),
      [[], all],
      'one applied all, the other none',
    );
  });
});

describe('SQLite durability', () => {
  it('commits wait for the disk with SQLITE_SYNCHRONOUS=full; by default, as SQLite advises for WAL, at checkpoints', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'op-sync-'));
    try {
      for (const [synchronous, pragma] of [
        [undefined, 1],
        ['normal', 1],
        ['full', 2],
      ] as const) {
        const db = await openDb(`sqlite:${join(dir, 'p.db')}`, synchronous === undefined ? {} : { synchronous });
        try {
          if (db.native.dialect !== 'sqlite') throw new Error('not SQLite');
          assert.equal(db.native.writer.pragma('synchronous', { simple: true }), pragma, String(synchronous));
          assert.equal(db.native.writer.pragma('journal_mode', { simple: true }), 'wal');
        } finally {
          await db.close();
        }
      }
      // The setting reaches the store the server and the CLI boot.
      const booted = await boot(
        loadConfig({
          DATABASE_URL: `sqlite:${join(dir, 'booted.db')}`,
          KEY_FILE: join(dir, 'encryption.key'),
          ADMIN_TOKEN: 'test-admin-token-0123456789',
          SQLITE_SYNCHRONOUS: 'FULL',
        }),
      );
      try {
        const { db } = booted.services;
        if (db.native.dialect !== 'sqlite') throw new Error('not SQLite');
        assert.equal(db.native.writer.pragma('synchronous', { simple: true }), 2);
      } finally {
        await booted.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite store that cannot be written', () => {
  let t: TestApp;
  let token = '';
  let apiKey = '';
  let userId = '';
  let appId = '';
  let cookie = '';
  before(async () => {
    t = await startTestApp('sqlite');
    const [owner] = await createUsers(t.app, 1);
    assert.ok(owner, 'one user created');
    userId = owner.user_id;
    const bot = await createBot(t.app, userId);
    token = bot.telegram_token;
    apiKey = bot.api_key;
    appId = (await createApp(t.app, userId, [CB])).app_id;
    cookie = await createSessionCookie(t.app, userId);
    // What a read-only file does to the writer (chmod does not stop root, who runs CI here).
    if (t.services.db.native.dialect !== 'sqlite') throw new Error('not SQLite');
    t.services.db.native.writer.pragma('query_only = ON');
  });
  after(async () => {
    if (t.services.db.native.dialect === 'sqlite') t.services.db.native.writer.pragma('query_only = OFF');
    await t.close();
  });

  it('answers writes 503 in each surface envelope, and /readyz 503', async () => {
    const event = await t.app.inject({
      method: 'POST',
      url: '/internal/v1/events',
      headers: adminHeaders,
      payload: {
        events: [
          {
            id: 'ro-1',
            type: 'user.upserted',
            data: { user_id: 'ro-u', name: 'x', wallet_address: `0x${'9'.repeat(40)}` },
          },
        ],
      },
    });
    assert.deepEqual(
      [event.statusCode, event.json()],
      [503, { error: 'store_unavailable', message: 'the database is unavailable; retry later' }],
    );

    const bot = await t.app.inject({
      method: 'POST',
      url: '/openapi/bot/sendMessage',
      headers: { 'x-api-key': apiKey },
      payload: { chat_id: userId, text: 'hello' },
    });
    assert.deepEqual(
      [bot.statusCode, bot.json()],
      [
        503,
        {
          ok: false,
          result: null,
          error_code: 503,
          message: 'the database is unavailable; retry later',
          success: false,
        },
      ],
    );

    const telegram = await t.app.inject({
      method: 'POST',
      url: `/telegram/bot${token}/setMyCommands`,
      payload: { commands: [{ command: 'start', description: 'Start' }] },
    });
    assert.deepEqual(
      [telegram.statusCode, telegram.json()],
      [503, { ok: false, error_code: 503, description: 'Service Unavailable' }],
    );

    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.deepEqual([ready.statusCode, ready.json()], [503, { status: 'degraded', down: ['database'] }]);

    // The authorize page reads, then its Allow writes a code: a page answering 503 too.
    const params = { app_id: appId, redirect_uri: CB, scope: 'moment', grant_type: 'authorization_code' };
    const page = await openAuthorize(t.app, params, cookie);
    assert.equal(page.status, 200, page.body);
    const csrf = String(page.setCookie).split(';')[0] ?? '';
    const allowed = await t.app.inject({
      method: 'POST',
      url: '/oauth/authorize',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${cookie}; ${csrf}` },
      payload: new URLSearchParams({ ...hiddenFields(page.body), action: 'allow' }).toString(),
    });
    assert.equal(allowed.statusCode, 503, allowed.body);
    assert.match(String(allowed.headers['content-type']), /^text\/html/);

    const read = await t.app.inject({ method: 'POST', url: '/openapi/bot/getMe', headers: { 'x-api-key': apiKey } });
    assert.equal(read.json<{ ok: boolean }>().ok, true, 'reads still answer');
  });
});

describe('PostgreSQL closing the pool connections', { skip: !hasPostgres && 'PostgreSQL not reachable' }, () => {
  const name = `op_faults_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  let t: TestApp | undefined;
  before(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  });
  after(async () => {
    await t?.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it('keeps the process up and answers once the server terminated every idle connection', BOUNDED, async () => {
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    t = await startTestApp('postgres', { databaseUrl: url.toString() });
    const app = t.app;
    // Several requests at once, so that the pool holds several idle connections.
    const answers = await Promise.all(Array.from({ length: 6 }, () => app.inject({ method: 'GET', url: '/readyz' })));
    assert.deepEqual(
      answers.map((r) => r.statusCode),
      [200, 200, 200, 200, 200, 200],
    );
    if (t.services.db.native.dialect !== 'postgres') throw new Error('not PostgreSQL');
    const pool = t.services.db.native.pool;
    const idle = pool.idleCount;
    assert.ok(idle >= 1, `idle connections: ${String(idle)}`);

    let warned = 0;
    const allWarned = new Promise<void>((resolve) => {
      const onWarning = (w: Error & { code?: string }) => {
        if (w.code !== 'DB_IDLE_CLOSED' || ++warned < idle) return;
        process.off('warning', onWarning);
        resolve();
      };
      process.on('warning', onWarning);
    });
    const killed = await admin.query<{ n: string }>(
      'SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    );
    assert.equal(Number(killed.rows[0]?.n), idle);
    await allWarned;
    assert.equal(pool.totalCount, 0, 'the pool dropped every terminated connection');

    const res = await app.inject({
      method: 'POST',
      url: '/internal/v1/events',
      headers: adminHeaders,
      payload: {
        events: [
          {
            id: 'pg-1',
            type: 'user.upserted',
            data: { user_id: 'pg-u', name: 'x', wallet_address: `0x${'8'.repeat(40)}` },
          },
        ],
      },
    });
    assert.equal(res.statusCode, 200, res.body);
  });
});

describe(
  'PostgreSQL ending a session inside a transaction',
  { skip: !hasPostgres && 'PostgreSQL not reachable' },
  () => {
    const schema = `op_idle_${randomBytes(4).toString('hex')}`;
    after(() => dropSchema(schema));

    it(
      "ends an instance's transaction that stopped between statements, freeing its locks, and the process lives on",
      BOUNDED,
      async () => {
        // A frozen instance, as far as PostgreSQL can tell: its transaction holds a lock and says
        // nothing more. The timeout is short here; PG_IDLE_IN_TRANSACTION_MS is the one in use.
        const db = await openDb(PG_URL, { schema, idleInTransactionMs: 200 });
        try {
          let thaw!: () => void;
          const frozen = new Promise<void>((resolve) => {
            thaw = resolve;
          });
          let locked!: () => void;
          const lockTaken = new Promise<void>((resolve) => {
            locked = resolve;
          });
          const held = db.k.transaction().execute(async (tx) => {
            await sql`select pg_advisory_xact_lock(4242)`.execute(tx);
            locked();
            await frozen;
            await sql`select 1`.execute(tx);
          });
          const outcome = held.then(
            () => undefined,
            (e: unknown) => e,
          );
          // Another instance's write waits for that lock, and gets it once the session is ended.
          await lockTaken;
          await sql`select pg_advisory_xact_lock(4242)`.execute(db.k);
          thaw();
          const failed = await outcome;
          assert.ok(failed instanceof Error, 'the frozen transaction failed');
          assert.equal(toAppError(failed, '/internal/v1/events').def, Errors.storeUnavailable);
          // The pool dropped that connection and serves the next statement on a fresh one.
          const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db.k);
          assert.deepEqual(rows, [{ one: 1 }]);
        } finally {
          await db.close();
        }
      },
    );

    it('runs request statements under PG_IDLE_IN_TRANSACTION_MS', async () => {
      const db = await openDb(PG_URL, { schema });
      try {
        const { rows } = await sql`show idle_in_transaction_session_timeout`.execute(db.k);
        assert.deepEqual(rows, [
          { idle_in_transaction_session_timeout: `${String(PG_IDLE_IN_TRANSACTION_MS / 1000)}s` },
        ]);
      } finally {
        await db.close();
      }
    });
  },
);

describe('PostgreSQL that does not answer', () => {
  it('a connection not made within the connect timeout fails as unavailable (503), not forever', BOUNDED, async () => {
    // Accepts connections and never says a word: a server behind a black hole.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const address = silent.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const db = await openDb(`postgres://postgres@127.0.0.1:${String(address.port)}/none`);
    try {
      const failed = await pingDb(db).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(failed instanceof Error, 'the ping failed');
      assert.match(failed.message, /timeout/);
      assert.equal(toAppError(failed, '/internal/v1/events').def, Errors.storeUnavailable);
    } finally {
      await db.close();
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it("a client's aborted body (Fastify passes Node's ECONNRESET with status 400) is not the store's fault", () => {
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET', statusCode: 400 });
    assert.notEqual(toAppError(aborted, '/internal/v1/events').def, Errors.storeUnavailable);
    const lost = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    assert.equal(toAppError(lost, '/internal/v1/events').def, Errors.storeUnavailable, 'a driver socket error is');
  });

  it(
    'runs request statements under a statement timeout, and migrations without one',
    { skip: !hasPostgres && 'PostgreSQL not reachable' },
    async () => {
      const t = await startTestApp('postgres');
      try {
        const timeout = async () =>
          (await sql<{ statement_timeout: string }>`show statement_timeout`.execute(t.services.db.k)).rows;
        assert.deepEqual(await timeout(), [{ statement_timeout: '1min' }]);
        // Migrations run without it, the wait for another instance's migration lock included (the
        // same session), and give their connection back with it.
        const seen: string[] = [];
        const probe: Migration = {
          up: async (k) => {
            const r = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(k);
            seen.push(...r.rows.map((row) => row.statement_timeout));
          },
        };
        const list = { ...migrations('postgres'), '9000_probe': probe };
        assert.deepEqual(await migrate(t.services.db, list), ['9000_probe']);
        assert.deepEqual(seen, ['0']);
        assert.deepEqual(await timeout(), [{ statement_timeout: '1min' }]);
      } finally {
        await t.close();
      }
    },
  );
});
