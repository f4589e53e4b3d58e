// The operator token generated on a store's first start is shown only on a terminal: the real
// server with stdout piped (as under a service manager or `> log`) keeps it out of stdout and says
// on stderr, in one line, how to set one's own. A token of one's own shorter than 16 characters is
// taken, with one warning line.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ADMIN_TOKEN_HIDDEN, announceAdminToken } from '../src/modules/admin/announce.js';
import { freePort, startServer, until } from './helpers/process.js';
import { sqliteFolder } from './helpers/sqlite-folder.js';

const store = sqliteFolder('admin-token-test-');
const shortTokenStore = sqliteFolder('admin-token-short-');

const collector = (isTTY: boolean) => {
  let text = '';
  return {
    isTTY,
    write: (s: string) => (text += s),
    text: () => text,
  };
};

it('on a terminal the generated token is shown on stdout, once, and nothing goes to stderr', () => {
  const out = collector(true);
  const err = collector(false);
  announceAdminToken(out, err, 'tok_0123456789abcdef');
  assert.equal(out.text(), '\nADMIN_TOKEN (shown once; set ADMIN_TOKEN to choose your own): tok_0123456789abcdef\n\n');
  assert.equal(err.text(), '');
});

/** Until the server on `port` answers /healthz. */
const healthy = (port: number) =>
  until(async () => {
    try {
      return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
    } catch {
      return false;
    }
  }, 'the server to answer /healthz');

it('the real server with stdout piped: no token on stdout, one line on stderr', { timeout: 180_000 }, async () => {
  const port = await freePort();
  const server = startServer({
    ...store.env,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
  });
  try {
    await healthy(port);
    assert.doesNotMatch(server.stdout(), /ADMIN_TOKEN|shown once/);
    assert.equal(server.stderr(), ADMIN_TOKEN_HIDDEN);
  } finally {
    await server.proc.stop();
  }
});

it(
  'the real server starts with a short ADMIN_TOKEN, says so in one stderr line, and takes it',
  { timeout: 180_000 },
  async () => {
    const port = await freePort();
    const server = startServer({
      ...shortTokenStore.env,
      ADMIN_TOKEN: 'secret',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
    });
    try {
      await healthy(port);
      assert.equal(
        server.stderr(),
        'warning: ADMIN_TOKEN is shorter than 16 characters: easy to guess; choose a longer one outside tests\n',
      );
      const assistant = await fetch(`http://127.0.0.1:${port}/internal/v1/assistant`, {
        headers: { authorization: 'Bearer secret' },
      });
      assert.equal(assistant.status, 200);
    } finally {
      await server.proc.stop();
    }
  },
);
