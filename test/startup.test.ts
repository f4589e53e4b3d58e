// The real server process: a setting that points nowhere stops the start with one line naming it
// and exit code 1; Redis lost while running leaves the server answering on its own, reported by
// a warning, the redis_up gauge and /readyz, until Redis is back.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { runCli } from '../src/cli/run.js';
import { freePort, startRedis, startServer, until, type Proc } from './helpers/process.js';
import { sqliteFolder } from './helpers/sqlite-folder.js';

/** Starting through tsx on a busy machine takes a while; every wait is bounded by this. */
const BOUNDED = { timeout: 180_000 };

const base = {
  ...sqliteFolder('startup-test-').env,
  ADMIN_TOKEN: 'startup-test-admin-token-0123',
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
};

/** Starts the server with `env` over the defaults and waits for it to end. */
async function failedStart(env: Record<string, string>) {
  const server = startServer({ ...base, ...env });
  const code = await server.proc.exited;
  return { code, stdout: server.stdout(), stderr: server.stderr() };
}

describe('start-up failures', () => {
  it('an unreachable database, Redis or a port in use: one line naming the setting, exit 1', BOUNDED, async () => {
    const taken = createServer();
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const address = taken.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const [database, redis, inUse] = await Promise.all([
        failedStart({ DATABASE_URL: 'postgres://postgres:secret@127.0.0.1:1/x', PORT: String(await freePort()) }),
        failedStart({ REDIS_URL: 'redis://127.0.0.1:1', PORT: String(await freePort()) }),
        failedStart({ PORT: String(port) }),
      ]);
      assert.deepEqual(database, {
        code: 1,
        stdout: '',
        stderr:
          'DATABASE_URL: cannot reach the database at postgres://postgres:***@127.0.0.1:1/x (connect ECONNREFUSED 127.0.0.1:1)\n',
      });
      assert.deepEqual(redis, {
        code: 1,
        stdout: '',
        stderr: 'REDIS_URL: cannot reach Redis at redis://127.0.0.1:1 (connect ECONNREFUSED 127.0.0.1:1)\n',
      });
      assert.deepEqual(inUse, {
        code: 1,
        stdout: '',
        stderr: `PORT: 127.0.0.1:${port} is already in use; set PORT (or HOST) to a free one\n`,
      });
    } finally {
      taken.close();
    }
  });
});

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

describe('Redis lost while running', { skip: !hasRedisServer && 'redis-server not installed' }, () => {
  let redis: Proc | undefined;
  let server: ReturnType<typeof startServer> | undefined;
  after(async () => {
    await server?.proc.stop();
    await redis?.stop();
  });

  it('keeps answering on its own, says so, and resumes when Redis is back', BOUNDED, async () => {
    const io = { env: base, stdout: { write: () => true }, stderr: { write: () => true } };
    assert.equal(await runCli(['seed', '--users', '2'], io), 0, 'seeded');
    let credentials = '';
    const created = await runCli(['create-app', '--owner', 's1n2-u0', '--name', 'Outage'], {
      ...io,
      stdout: { write: (s: string) => (credentials += s) },
    });
    assert.equal(created, 0, 'app created');
    const creds = JSON.parse(credentials) as { app_id: string; api_key: string; app_secret: string };

    const redisPort = await freePort();
    redis = await startRedis(redisPort);
    const port = await freePort();
    server = startServer({
      ...base,
      PORT: String(port),
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      REDIS_PREFIX: 'startup-test:',
      LOG_LEVEL: 'info',
    });
    await server.proc.waitFor(/Server listening/);
    // The start names the prefix in use: instances on different ones would share nothing.
    await server.proc.waitFor(/"redisPrefix":"startup-test:"/);
    const url = `http://127.0.0.1:${port}`;

    let nonce = 0;
    const userInfo = async () => {
      const n = `n${++nonce}`;
      const t = String(Date.now());
      const signature = createHash('sha1')
        .update(creds.app_secret + n + t)
        .digest('hex');
      const res = await fetch(`${url}/openapi/user/info?user_id=s1n2-u1`, {
        headers: { app_id: creds.app_id, 'x-api-key': creds.api_key, nonce: n, timestamp: t, signature },
      });
      return res.status;
    };
    const readyz = async () => {
      const res = await fetch(`${url}/readyz`);
      const body: unknown = await res.json();
      return { status: res.status, body };
    };
    const redisUp = async () => /^redis_up (\d)$/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1];

    assert.deepEqual(await readyz(), { status: 200, body: { status: 'ready' } });
    assert.equal(await userInfo(), 200);
    assert.equal(await redisUp(), '1');
    // REDIS_PREFIX reaches the keys: the signed call's nonce and its read bucket are kept under it.
    const look = new Redis(`redis://127.0.0.1:${redisPort}`, { maxRetriesPerRequest: 2 });
    try {
      const keys = await look.keys('*');
      assert.ok(keys.length > 0 && keys.every((k) => k.startsWith('startup-test:')), keys.join(', '));
      assert.ok(
        keys.some((k) => k.startsWith('startup-test:nonce:')),
        keys.join(', '),
      );
    } finally {
      look.disconnect();
    }

    await redis.stop();
    await server.proc.waitFor(/"level":40,.*Redis lost/);
    assert.deepEqual(await readyz(), { status: 503, body: { status: 'degraded', down: ['redis'] } });
    assert.equal(await redisUp(), '0');
    for (let i = 0; i < 3; i++) assert.equal(await userInfo(), 200, `signed call ${i} without Redis`);

    redis = await startRedis(redisPort);
    await until(async () => (await readyz()).status === 200, '/readyz ready again');
    assert.deepEqual(await readyz(), { status: 200, body: { status: 'ready' } });
    assert.equal(await redisUp(), '1');
    assert.equal(await userInfo(), 200);
    assert.match(server.proc.out, /Redis is back/);
    assert.equal(server.proc.child.exitCode, null, 'the server is still running');
  });
});
