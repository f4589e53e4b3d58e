// Closing a SQLite store leaves the database file whole: no -wal file beside it, which would be
// replayed onto a backup copied in its place (README, Backups: the restore steps).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { sql } from 'kysely';
import { openDb } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';
import { sqliteFolder } from './helpers/sqlite-folder.js';

it('a SQLite store closed after writes and reads leaves no -wal or -shm file beside it', async () => {
  const { dir } = sqliteFolder('sqlite-close-test-');
  const path = join(dir, 'platform.db');
  const db = await openDb(`sqlite:${path}`);
  await migrate(db);
  await sql`insert into meta (key, value) values ('close-test', '1')`.execute(db.k);
  if (db.native.dialect !== 'sqlite') throw new Error('not SQLite');
  assert.equal(db.native.reader.prepare("select value from meta where key = 'close-test'").pluck().get(), '1');
  assert.ok(existsSync(`${path}-wal`), 'the store runs in WAL mode while open');
  await db.close();
  assert.deepEqual([existsSync(`${path}-wal`), existsSync(`${path}-shm`)], [false, false]);
});
