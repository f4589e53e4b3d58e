// The CLI as operators run it: the `open-platform` bin (pure JSON on stdout with --json),
// progress off a terminal, snake_case ledger figures, and a SQLite backup restored elsewhere.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { ADMIN_TOKEN_HIDDEN } from '../modules/admin/announce.js';
import { LINE_EVERY_MS } from './progress.js';
import { runCli } from './run.js';
import { sqliteFolder } from '../../test/helpers/sqlite-folder.js';
import { PG_URL, storesUnderTest } from '../../test/helpers/stores.js';

const { dir, env: store } = sqliteFolder('cli-ops-test-');
const restored = sqliteFolder('cli-restore-test-');
const env = {
  ...store,
  ADMIN_TOKEN: 'cli-ops-admin-token-0123456789',
  RATE_LIMITS: 'off',
};

async function cli(
  argv: string[],
  options: { env?: Record<string, string>; now?: () => number; terminal?: boolean } = {},
) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    env: options.env ?? env,
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s), isTTY: options.terminal === true },
    ...(options.now !== undefined ? { now: options.now } : {}),
  });
  return { code, stdout, stderr };
}

const bin = fileURLToPath(new URL('../../bin/open-platform.js', import.meta.url));
/** The installed command, as `open-platform ... > file` runs it (stdout exactly as a file would get it). */
function binProcess(...argv: string[]) {
  const r = spawnSync(process.execPath, [bin, ...argv], { env: { ...process.env, ...env }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const LEDGER_KEYS = [
  'accounts',
  'credited_cents',
  'entries_match_balances',
  'failures',
  'negative_user_accounts',
  'ok',
  'sum_of_balances_cents',
  'unbalanced_transactions',
  'user_balances_cents',
];

describe('cli for operators', () => {
  it('package.json ships the open-platform bin', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      bin?: Record<string, string>;
    };
    assert.equal(pkg.bin?.['open-platform'], 'bin/open-platform.js');
  });

  it('seed off a terminal prints progress lines on stderr, the summary alone on stdout', async () => {
    let clock = 0;
    // Each reading is a batch's worth of time later, so every batch is past the line interval.
    const now = () => (clock += LINE_EVERY_MS);
    const r = await cli(['seed', '--users', '20', '--batch', '100'], { now });
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout) as { plan: { events: number }; applied: number };
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, Math.ceil(summary.plan.events / 100), r.stderr);
    assert.match(lines[0] ?? '', /^seed: 100\/\d+ events \(\d+%\), \d+ events\/s$/);
    assert.match(
      lines.at(-1) ?? '',
      new RegExp(`^seed: ${summary.plan.events}/${summary.plan.events} events \\(100%\\)`),
    );
  });

  it('ledger-check prints snake_case figures, as the API names things', async () => {
    const r = await cli(['ledger-check']);
    assert.equal(r.code, 0, r.stdout);
    const check = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(check).sort(), LEDGER_KEYS);
    assert.equal(check.ok, true);
  });

  it('the bin with --json writes one JSON document on stdout and nothing else', () => {
    const check = binProcess('ledger-check', '--json');
    assert.equal(check.code, 0, check.stderr);
    assert.deepEqual(Object.keys(JSON.parse(check.stdout) as object).sort(), LEDGER_KEYS);
    const migrate = binProcess('migrate', '--json');
    assert.equal(migrate.code, 0, migrate.stderr);
    assert.deepEqual(JSON.parse(migrate.stdout), { applied: [] });
    const backup = binProcess('backup', join(dir, 'bin-copy.db'), '--json');
    assert.equal(backup.code, 0, backup.stderr);
    const copied = JSON.parse(backup.stdout) as { file: string; bytes: number };
    assert.deepEqual(copied, { file: join(dir, 'bin-copy.db'), bytes: statSync(join(dir, 'bin-copy.db')).size });
    assert.match(backup.stderr, /^keep the encryption key with it: the key file /);
  });

  it('backup copies the store; the copy, restored into a fresh directory, holds the same ledger', async () => {
    const original = await cli(['ledger-check']);
    const copy = join(dir, 'copy.db');
    const r = await cli(['backup', copy]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^backed up .*platform\\.db to ${copy} \\(\\d+ bytes\\)\\n$`));

    const again = await cli(['backup', copy]);
    assert.deepEqual(again, { code: 1, stdout: '', stderr: `backup: ${copy} already exists; choose a new file\n` });

    // Restore: the copy becomes the database of a fresh directory. Without the key its secrets
    // were sealed with, the store is refused, naming the setting.
    copyFileSync(copy, join(restored.dir, 'platform.db'));
    const keyless = await cli(['ledger-check'], { env: { ...env, ...restored.env } });
    assert.equal(keyless.code, 1);
    assert.match(keyless.stderr, /KEY_FILE: there is no key file at .* to open the secrets in the database/);
    copyFileSync(store.KEY_FILE, restored.env.KEY_FILE);
    const check = await cli(['ledger-check'], {
      env: { ...env, ...restored.env },
    });
    assert.equal(check.code, 0, check.stdout);
    assert.equal(check.stdout, original.stdout);
    const figures = JSON.parse(check.stdout) as { accounts: number; credited_cents: number };
    assert.ok(figures.accounts > 0 && figures.credited_cents > 0, `the seeded ledger is there: ${check.stdout}`);
  });

  it('backup creates the folder of its file; a copy it cannot make is one line, exit 1, and no file', async () => {
    const nested = join(dir, 'backups', 'nightly', 'platform.db');
    const made = await cli(['backup', nested, '--json']);
    assert.equal(made.code, 0, made.stderr);
    assert.deepEqual(JSON.parse(made.stdout), { file: nested, bytes: statSync(nested).size });

    const underFile = join(dir, 'copy-of-nothing.db', 'sub', 'b.db');
    writeFileSync(join(dir, 'copy-of-nothing.db'), '');
    const blocked = await cli(['backup', underFile]);
    assert.equal(blocked.code, 1);
    assert.equal(blocked.stdout, '');
    assert.match(
      blocked.stderr,
      new RegExp(`^backup: could not copy .*platform\\.db to ${underFile} \\(ENOTDIR: [^\\n]*\\)\\n$`),
    );

    const garbage = join(dir, 'garbage.db');
    writeFileSync(garbage, 'not a database');
    const target = join(dir, 'garbage-copy.db');
    const bad = await cli(['backup', target], { env: { ...env, DATABASE_URL: `sqlite:${garbage}` } });
    assert.deepEqual(bad, {
      code: 1,
      stdout: '',
      stderr: `backup: could not copy ${garbage} to ${target} (file is not a database)\n`,
    });
    assert.equal(existsSync(target), false);
  });

  it('a command on a SQLite store that is not there refuses, creating nothing; migrate and seed create it', async () => {
    const empty = sqliteFolder('cli-missing-test-');
    const missing = { ...env, ...empty.env, ADMIN_TOKEN: '' };
    const file = empty.env.DATABASE_URL.slice('sqlite:'.length);
    for (const argv of [
      ['ledger-check'],
      ['create-app', '--owner', 'someone', '--name', 'x'],
      ['create-bot', '--owner', 'someone', '--name', 'x'],
      ['backup', join(empty.dir, 'copy.db')],
    ]) {
      const r = await cli(argv, { env: missing });
      assert.deepEqual(
        r,
        { code: 1, stdout: '', stderr: `DATABASE_URL: no database at ${file} (run migrate to create one)\n` },
        argv.join(' '),
      );
    }
    assert.deepEqual(readdirSync(empty.dir), [], 'no store, no key file');
    assert.equal((await cli(['migrate', '--json'], { env: missing })).code, 0);
    assert.equal((await cli(['ledger-check'], { env: missing })).code, 0);

    const seeded = sqliteFolder('cli-missing-seed-test-');
    const r = await cli(['seed', '--users', '2'], { env: { ...env, ...seeded.env } });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(existsSync(seeded.env.DATABASE_URL.slice('sqlite:'.length)), 'seed made the store');
  });

  it('the operator token generated for a new store is shown on a terminal only, as the server shows it', async () => {
    for (const terminal of [false, true]) {
      const fresh = { ...env, ...sqliteFolder('cli-token-test-').env, ADMIN_TOKEN: '' };
      assert.equal((await cli(['migrate'], { env: fresh })).code, 0);
      const r = await cli(['ledger-check'], { env: fresh, terminal });
      assert.equal(r.code, 0, r.stderr);
      if (terminal)
        assert.match(r.stderr, /^\nADMIN_TOKEN \(shown once; set ADMIN_TOKEN to choose your own\): \S{16,}\n\n$/);
      else assert.equal(r.stderr, ADMIN_TOKEN_HIDDEN);
      const again = await cli(['ledger-check'], { env: fresh, terminal });
      assert.equal(again.stderr, '', 'shown once');
    }
  });

  it('backup of PostgreSQL prints the pg_dump and pg_restore commands and exits 1; of sqlite::memory: exits 1; bad usage exits 2', async () => {
    const pg = await cli(['backup', 'nightly.dump'], { env: { ...env, DATABASE_URL: 'postgres://u@h/db' } });
    assert.equal(pg.code, 1);
    assert.equal(pg.stdout, '');
    assert.match(pg.stderr, /^ {2}pg_dump --format=custom --file=nightly\.dump "\$DATABASE_URL"$/m);
    assert.match(pg.stderr, /^ {2}pg_restore --no-owner --dbname="\$DATABASE_URL" nightly\.dump$/m);
    const memoryCopy = join(dir, 'memory-copy', 'copy.db');
    const memory = await cli(['backup', memoryCopy], { env: { ...env, DATABASE_URL: 'sqlite::memory:' } });
    assert.deepEqual(memory, {
      code: 1,
      stdout: '',
      stderr: 'backup: DATABASE_URL is an in-memory SQLite store (sqlite::memory:); it has no file to copy\n',
    });
    assert.equal(existsSync(join(dir, 'memory-copy')), false, 'nothing made for an in-memory store');
    for (const argv of [['backup'], ['backup', 'a', 'b'], ['backup', '--to', 'x']]) {
      const bad = await cli(argv);
      assert.equal(bad.code, 2, argv.join(' '));
      assert.match(bad.stderr, /Usage: npm run cli -- backup <file>/);
    }
    assert.equal(existsSync('nightly.dump'), false, 'nothing written for PostgreSQL');
  });

  it('migrate that cannot open or write the store says so in one line, exit 1, nothing on stdout', async () => {
    const notDb = join(dir, 'not-a-database.db');
    writeFileSync(notDb, 'hello');
    const unreachable = 'postgres://postgres:secret@127.0.0.1:1/x';
    const cases: [string, string][] = [
      [
        unreachable,
        `cannot reach the database at postgres://postgres:***@127.0.0.1:1/x (connect ECONNREFUSED 127.0.0.1:1)`,
      ],
      [`sqlite:${notDb}`, `cannot reach the database at sqlite:${notDb} (file is not a database)`],
      // pg takes the password as a query parameter too: masked as in the user part.
      [
        'postgres://postgres@127.0.0.1:1/x?password=S3cret',
        `cannot reach the database at postgres://postgres@127.0.0.1:1/x?password=*** (connect ECONNREFUSED 127.0.0.1:1)`,
      ],
    ];
    if ((await storesUnderTest()).includes('postgres')) {
      const missing = new URL(PG_URL);
      missing.pathname = '/no_such_database_cli_test';
      cases.push([
        missing.href,
        `cannot reach the database at ${missing.href} (database "no_such_database_cli_test" does not exist)`,
      ]);
    }
    for (const [url, words] of cases) {
      for (const argv of [['migrate'], ['migrate', '--json']]) {
        const r = await cli(argv, { env: { ...env, DATABASE_URL: url } });
        assert.deepEqual(r, { code: 1, stdout: '', stderr: `DATABASE_URL: ${words}\n` }, `${argv.join(' ')} ${url}`);
      }
    }
  });

  it('migrate on a read-only SQLite file says so in one line', async () => {
    const folder = sqliteFolder('cli-readonly-test-');
    // A SQLite file of another program (not in WAL mode): opening it for the platform writes.
    const path = join(folder.dir, 'old.db');
    const other = new SQLite(path);
    other.exec('create table t (x)');
    other.close();
    // SQLite opens a file whose write version (header byte 18) is above 2 read-only, for root too
    // (chmod does not stop root, who runs CI here).
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.from([3]), 0, 1, 18);
    closeSync(fd);
    const r = await cli(['migrate', '--json'], { env: { ...env, DATABASE_URL: `sqlite:${path}` } });
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(
      r.stderr,
      /^DATABASE_URL: the database at sqlite:.*old\.db is read-only \(.*\); the platform must be able to write the file and its folder\n$/,
    );
  });
});
