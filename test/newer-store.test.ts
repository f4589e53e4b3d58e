// A store migrated by a newer version: the start stops with one line saying so, where Kysely's
// "corrupted migrations" stack trace suggested a damaged database.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { boot, StartupError } from '../src/bootstrap.js';
import { runCli } from '../src/cli/run.js';
import { loadConfig } from '../src/config.js';
import { sqliteFolder } from './helpers/sqlite-folder.js';

it('a store migrated by a newer version is refused naming DATABASE_URL, by the server and the CLI', async () => {
  const env = { ...sqliteFolder('newer-store-').env, ADMIN_TOKEN: 'newer-store-admin-token-0123' };
  const config = loadConfig(env);
  const booted = await boot(config);
  // Kysely's own bookkeeping table, outside the platform's schema types.
  await sql`insert into kysely_migration (name, timestamp) values (${'9999_from_the_future'}, ${new Date().toISOString()})`.execute(
    booted.services.db.k,
  );
  await booted.close();
  await assert.rejects(boot(config), (e: unknown) => {
    assert.ok(e instanceof StartupError, String(e));
    assert.equal(
      e.message,
      'DATABASE_URL: the database was migrated by a newer version of the platform (migration 9999_from_the_future is unknown to this one); upgrade the platform to that version',
    );
    return true;
  });
  let stderr = '';
  const code = await runCli(['migrate'], {
    env,
    stdout: { write: () => true },
    stderr: { write: (text: string) => (stderr += text) },
  });
  assert.deepEqual(
    { code, stderr },
    {
      code: 1,
      stderr:
        'DATABASE_URL: the database was migrated by a newer version of the platform (migration 9999_from_the_future is unknown to this one); upgrade the platform to that version\n',
    },
  );
});
