// The demo's credentials reach a person at a terminal only, and its sign-in link is good for one
// use within minutes of the start.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../app.js';
import { ASSISTANT_USER_ID } from '../db/migrations/0003_developers.js';
import type { App } from '../http/types.js';
import { FakeClock, startTestApp, type TestApp } from '../../test/helpers/app.js';
import { createUsers } from '../../test/helpers/factories.js';
import { announceDemo, demoHint } from './announce.js';
import type { Demo } from './demo.js';
import { demoSignIn, SIGN_IN_LINK_TTL_MS } from './sign-in.js';

const serverScript = join(import.meta.dirname, '..', 'server.ts');

describe('npm start with stdout redirected (not a terminal)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'op-demo-'));
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints a one-line hint and no key, secret or sign-in link', async () => {
    const server = spawn(process.execPath, ['--import', 'tsx', serverScript, '--demo'], {
      env: {
        ...process.env,
        DATABASE_URL: `sqlite:${join(dir, 'platform.db')}`,
        PORT: '0',
        HOST: '127.0.0.1',
        PUBLIC_URL: 'http://demo.test',
        ADMIN_TOKEN: 'demo-test-admin-token-0123456789',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    server.stdout.setEncoding('utf8');
    server.stderr.setEncoding('utf8');
    server.stderr.on('data', (chunk: string) => (out += chunk));
    const exited = once(server, 'exit');
    // The announcement is the last thing a start writes; stop the server as soon as it is there.
    await new Promise<void>((resolve, reject) => {
      server.stdout.on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('Demo community loaded')) resolve();
      });
      server.on('exit', () => {
        reject(new Error(`server exited before announcing the demo:\n${out}`));
      });
    });
    server.kill('SIGTERM');
    await exited;
    assert.ok(out.includes(demoHint('http://demo.test')), `hint missing:\n${out}`);
    assert.doesNotMatch(out, /ak_[\w-]{32}/, 'an App Key was printed');
    assert.doesNotMatch(out, /\b[0-9a-f]{40}\b/, 'an App Secret was printed');
    assert.doesNotMatch(out, /\/demo\/sign-in\//, 'the sign-in link was printed');
  });
});

describe('on a terminal', () => {
  it('shows the credentials and the sign-in link once', () => {
    const demo: Demo = {
      userId: '10002',
      developerId: '10001',
      groupUrl: 'https://community.example/g/demo',
      app: { app_id: 'app_1', api_key: 'ak_key', app_secret: 'f'.repeat(40) },
      bot: { bot_user_id: '1', api_key: 'ak_bot' },
    };
    const writes: string[] = [];
    announceDemo({ isTTY: true, write: (s: string) => writes.push(s) }, demo, 'http://x', '/demo/sign-in/abc');
    assert.equal(writes.length, 1);
    const [text = ''] = writes;
    for (const shown of [
      'ak_key',
      'f'.repeat(40),
      'ak_bot',
      'http://x/demo/sign-in/abc',
      'http://x/playground/?bot=1',
      `http://x/playground/?bot=${ASSISTANT_USER_ID}`,
      'http://x/console/',
    ]) {
      assert.ok(text.includes(shown), `${shown} not shown`);
    }
  });
});

describe('the sign-in link', () => {
  const clock = new FakeClock();
  let t: TestApp;
  let developer = '';
  before(async () => {
    t = await startTestApp('sqlite', { clock });
    [developer = ''] = (await createUsers(t.app, 1)).map((u) => u.user_id);
  });
  after(async () => t.close());

  const withLink = async (use: (app: App, path: string) => Promise<void>) => {
    let path = '';
    const app = await buildApp(t.services, {
      extraRoutes: (a) => {
        path = demoSignIn(a, t.services, developer);
      },
    });
    try {
      await use(app, path);
    } finally {
      await app.close();
    }
  };

  it('signs in once; the second use is 404', () =>
    withLink(async (app, path) => {
      assert.equal((await app.inject({ method: 'GET', url: path })).statusCode, 302);
      const again = await app.inject({ method: 'GET', url: path });
      assert.equal(again.statusCode, 404);
      assert.equal(again.headers['set-cookie'], undefined);
    }));

  it("the link's session opens the playground too, as the start-up text says", () =>
    withLink(async (app, path) => {
      const signedIn = await app.inject({ method: 'GET', url: path });
      const cookie = String(signedIn.headers['set-cookie']).split(';')[0] ?? '';
      const playground = await app.inject({
        method: 'GET',
        url: `/playground/?bot=${ASSISTANT_USER_ID}`,
        headers: { cookie },
      });
      assert.equal(playground.statusCode, 200, playground.body);
    }));

  it(`is 404 once ${SIGN_IN_LINK_TTL_MS / 60_000} minutes have passed`, () =>
    withLink(async (app, path) => {
      clock.advance(SIGN_IN_LINK_TTL_MS);
      const late = await app.inject({ method: 'GET', url: path });
      assert.equal(late.statusCode, 404);
      assert.equal(late.headers['set-cookie'], undefined);
    }));
});
