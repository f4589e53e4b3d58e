// The key for secrets at rest is checked against the store at every start: another key (a KEY_FILE
// path that moved, the default one read from another working directory, another ENCRYPTION_KEY)
// stops the start naming the setting, where it used to start "ready" and answer 500 for every bot.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freshStore } from '../bench/lib/store.js';
import { boot, StartupError } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { saveKeyFile } from '../src/lib/keys.js';
import { PG_URL, storesUnderTest } from './helpers/stores.js';

const dir = mkdtempSync(join(tmpdir(), 'op-key-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Boots and closes; the StartupError's message when refused, else undefined. */
async function start(env: Record<string, string>, use?: Parameters<typeof withServices>[1]) {
  try {
    await withServices(env, use ?? (() => Promise.resolve()));
    return undefined;
  } catch (e) {
    if (e instanceof StartupError) return e.message;
    throw e;
  }
}

async function withServices(
  env: Record<string, string>,
  use: (s: Awaited<ReturnType<typeof boot>>['services']) => Promise<void>,
) {
  const booted = await boot(loadConfig({ ADMIN_TOKEN: 'key-test-admin-token-0123', ...env }));
  try {
    await use(booted.services);
  } finally {
    await booted.close();
  }
}

const wrongFile = (path: string) =>
  `KEY_FILE: the key in ${path} does not open the secrets in the database; set KEY_FILE (an absolute path) or ENCRYPTION_KEY to the key this database was created with`;

it('a generated key file never replaces one another process wrote meanwhile', () => {
  const path = join(dir, 'raced.key');
  const theirs = `${randomBytes(32).toString('base64')}\n`;
  assert.equal(saveKeyFile(path, randomBytes(32)), true, 'the first writer');
  const ours = readFileSync(path, 'utf8');
  writeFileSync(path, theirs);
  assert.equal(saveKeyFile(path, randomBytes(32)), false, 'a later writer is told');
  assert.equal(readFileSync(path, 'utf8'), theirs, 'and the key on disk stays');
  assert.notEqual(ours, theirs);
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.endsWith('.tmp')),
    [],
    'no temporary file is left',
  );
});

for (const store of await storesUnderTest()) {
  describe(`encryption key checked at start [${store}]`, () => {
    it('another key file, a missing one or another ENCRYPTION_KEY stops the start', async () => {
      const fresh = await freshStore(store, 'key', PG_URL);
      after(() => fresh.remove());
      const [k1, k2, k3] = ['k1', 'k2', 'k3'].map((n) => join(dir, `${store}-${n}.key`)) as [string, string, string];
      const db = { DATABASE_URL: fresh.url };

      assert.equal(await start({ ...db, KEY_FILE: k1 }), undefined, 'first start writes the key file');
      assert.match(readFileSync(k1, 'utf8'), /^[A-Za-z0-9+/]{43}=\n$/);
      assert.equal(await start({ ...db, KEY_FILE: k1 }), undefined, 'the same key starts again');

      writeFileSync(k2, `${randomBytes(32).toString('base64')}\n`);
      assert.equal(await start({ ...db, KEY_FILE: k2 }), wrongFile(k2));
      assert.equal(
        await start({ ...db, KEY_FILE: k3 }),
        `KEY_FILE: there is no key file at ${k3} to open the secrets in the database; set KEY_FILE (an absolute path) or ENCRYPTION_KEY to the key this database was created with`,
      );
      assert.equal(existsSync(k3), false, 'no key file is written for a store sealed with another key');
      assert.equal(
        await start({ ...db, ENCRYPTION_KEY: randomBytes(32).toString('base64') }),
        'ENCRYPTION_KEY: ENCRYPTION_KEY does not open the secrets in the database; set KEY_FILE (an absolute path) or ENCRYPTION_KEY to the key this database was created with',
      );
      // The key of the file, given as ENCRYPTION_KEY, is the same key.
      assert.equal(await start({ ...db, ENCRYPTION_KEY: readFileSync(k1, 'utf8').trim() }), undefined);
    });

    it('a store from before the check: its secrets decide, and the check is added', async () => {
      const fresh = await freshStore(store, 'keyold', PG_URL);
      after(() => fresh.remove());
      const [k1, k2] = ['o1', 'o2'].map((n) => join(dir, `${store}-${n}.key`)) as [string, string];
      const db = { DATABASE_URL: fresh.url };
      const forgetCheck = (s: Awaited<ReturnType<typeof boot>>['services']) =>
        s.db.k.deleteFrom('meta').where('key', '=', 'encryption_key_check').execute();
      await withServices({ ...db, KEY_FILE: k1 }, async (s) => {
        const { result } = await s.events.apply(
          [
            {
              id: 'u',
              type: 'user.upserted',
              data: { user_id: 'owner', name: 'Owner', wallet_address: `0x${'1'.repeat(40)}` },
            },
          ],
          'one-by-one',
        );
        assert.deepEqual(result.refused, []);
        await s.apps.createApp({ owner_user_id: 'owner', name: 'old', redirect_uris: ['https://a.example/cb'] });
        await forgetCheck(s);
      });
      writeFileSync(k2, `${randomBytes(32).toString('base64')}\n`);
      assert.equal(await start({ ...db, KEY_FILE: k2 }), wrongFile(k2), 'an app secret that does not open');
      assert.equal(await start({ ...db, KEY_FILE: k1 }), undefined, 'the right key is accepted');
      await withServices({ ...db, KEY_FILE: k1 }, async (s) => {
        const kept = await s.db.k.selectFrom('meta').select('key').where('key', '=', 'encryption_key_check').execute();
        assert.equal(kept.length, 1, 'and the check value written');
      });
    });

    it('a malformed key file stops the start naming KEY_FILE', async () => {
      const fresh = await freshStore(store, 'keybad', PG_URL);
      after(() => fresh.remove());
      for (const text of ['', 'c2hvcnQ=\n', `${'!'.repeat(44)}\n`]) {
        const path = join(dir, `${store}-bad.key`);
        writeFileSync(path, text);
        assert.equal(
          await start({ DATABASE_URL: fresh.url, KEY_FILE: path }),
          `KEY_FILE: ${path} does not hold a 32-byte base64 key; restore the key this store was created with, or set ENCRYPTION_KEY`,
          JSON.stringify(text),
        );
      }
    });
  });
}
