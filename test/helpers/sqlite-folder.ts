// A SQLite store in a temporary folder of its own, for the tests that run the CLI or the server on files.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

export interface SqliteFolder {
  dir: string;
  /** DATABASE_URL and KEY_FILE of the store in `dir`. */
  env: { DATABASE_URL: string; KEY_FILE: string };
}

/** A temporary folder, removed after the tests of the file that asks for it, for a SQLite store and its key file. */
export function sqliteFolder(prefix: string): SqliteFolder {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, env: { DATABASE_URL: `sqlite:${join(dir, 'platform.db')}`, KEY_FILE: join(dir, 'encryption.key') } };
}
