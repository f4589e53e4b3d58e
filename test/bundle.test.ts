// The server as production runs it: bundled with scripts/bundle.mjs (Kysely and TypeBox inside,
// the other packages external) and started by plain node with package.json's config.nodeFlags.
// The rest of the suite runs the sources under tsx, so this is where a bundling mistake shows.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bundleOptions, nodeFlags } from '../scripts/bundle.mjs';
import { sha1 } from './helpers/factories.js';
import { Proc, freePort, until } from './helpers/process.js';

const root = new URL('../', import.meta.url);
const ADMIN_TOKEN = 'bundle-test-admin-token-0123456789';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts?: Record<string, unknown> };

describe('node settings', () => {
  // The scripts spell the flags out (a shell variable would not expand on every platform); the
  // bench reads config.nodeFlags; they must stay the same.
  it('npm start and npm run serve pass exactly config.nodeFlags to node', () => {
    const flags = nodeFlags.join(' ');
    const scripts = pkg.scripts ?? {};
    assert.equal(scripts.serve, `node scripts/build.mjs && node ${flags} dist/server.js`);
    assert.equal(scripts.start, `node scripts/build.mjs && node --enable-source-maps ${flags} dist/server.js --demo`);
  });
});

describe('the production bundle', { timeout: 120_000 }, () => {
  // Inside the checkout (dist/ is not in git), so the bundle's imports find node_modules.
  const outDir = fileURLToPath(new URL(`dist/bundle-test-${randomBytes(4).toString('hex')}/`, root));
  const dataDir = mkdtempSync(`${tmpdir()}/op-bundle-test-`);
  const file = `${outDir}server.mjs`;
  let proc: Proc | undefined;
  let base = '';

  before(async () => {
    await build({ ...bundleOptions, entryPoints: [fileURLToPath(new URL('src/server.ts', root))], outfile: file });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, [...nodeFlags, file], {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: `sqlite:${dataDir}/platform.db`,
        ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        ADMIN_TOKEN,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc = new Proc(child);
    const started = proc;
    await until(
      async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.ok === true,
      'the bundle to listen',
    );
    assert.equal(started.child.exitCode, null, started.out);
  });

  after(async () => {
    await proc?.stop();
    rmSync(outDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('holds no static import of pg or ioredis (each is imported where it is first needed)', () => {
    const code = readFileSync(file, 'utf8');
    assert.doesNotMatch(code, /^import [^;]* from "(pg|ioredis)";/m);
    assert.match(code, /await import\("pg"\)/);
    assert.match(code, /await import\("ioredis"\)/);
    assert.doesNotMatch(code, /^import [^;]* from "(kysely|typebox)";/m);
    // A CommonJS package pulled into the bundle would fail at start on its first require().
    assert.doesNotMatch(code, /__require\(/);
  });

  it('ingests an event, creates an app and answers a signed read', async () => {
    const events = await fetch(`${base}/internal/v1/events`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        events: [
          {
            id: 'bundle-1',
            type: 'user.upserted',
            data: { user_id: 'b1', name: 'Bundled', wallet_address: `0x${'1'.repeat(40)}`, level: 3 },
          },
        ],
      }),
    });
    assert.equal(events.status, 200, await events.clone().text());
    const created = await fetch(`${base}/internal/v1/apps`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ owner_user_id: 'b1', name: 'bundle app', redirect_uris: ['https://client.example/cb'] }),
    });
    assert.equal(created.status, 201);
    const creds = (await created.json()) as { app_id: string; api_key: string; app_secret: string };
    const nonce = '12345678';
    const timestamp = String(Date.now());
    const info = await fetch(`${base}/openapi/user/info?user_id=b1`, {
      headers: {
        app_id: creds.app_id,
        'x-api-key': creds.api_key,
        nonce,
        timestamp,
        signature: sha1(creds.app_secret + nonce + timestamp),
      },
    });
    assert.equal(info.status, 200);
    assert.deepEqual(await info.json(), {
      code: 1,
      data: { name: 'Bundled', wallet_address: `0x${'1'.repeat(40)}`, avatar: '', uid: 'b1' },
      message: 'success',
      success: true,
    });
  });

  it('refuses a bad body with the envelope (TypeBox validation inside the bundle)', async () => {
    const r = await fetch(`${base}/internal/v1/events`, { method: 'POST', headers: admin, body: '{"events":7}' });
    assert.equal(r.status, 400);
    assert.equal(((await r.json()) as { error: string }).error, 'invalid_request');
  });
});
