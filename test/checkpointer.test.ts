// SQLite's WAL checkpoints on a worker thread (src/db/checkpointer.ts): it starts only under heavy
// writes, keeps the WAL small while they go on, ends when they stop, and closes before the store.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { WalCheckpointer } from '../src/db/checkpointer.js';
import { Proc } from './helpers/process.js';
import { sqliteFolder } from './helpers/sqlite-folder.js';
import { MB, manual, startWorker, walStore, write } from './helpers/wal-store.js';

const CHILD = fileURLToPath(new URL('./helpers/checkpointer-child.ts', import.meta.url));
const storePath = (): string => join(sqliteFolder('checkpointer-test-').dir, 'platform.db');
const walBytes = (path: string): number => statSync(`${path}-wal`).size;

/** The checkpoint worker's warnings from now on, until `stop`. */
function checkpointerWarnings(): { warnings: string[]; stop: () => void } {
  const warnings: string[] = [];
  const heard = (w: Error & { code?: string }): void => {
    if (w.code === 'DB_CHECKPOINTER') warnings.push(w.message);
  };
  process.on('warning', heard);
  return { warnings, stop: () => process.off('warning', heard) };
}

it('a worker starts only when the WAL grows at the heavy rate between two looks', async () => {
  const { options, clock } = manual();
  const { db, cp } = await walStore(storePath(), options);
  try {
    assert.equal(await cp.look(), false, 'the first look only measures');
    write(db, 0.25);
    clock.ms = 1_000;
    assert.equal(await cp.look(), false, 'a quarter of the heavy rate');
    clock.ms = 2_000;
    assert.equal(await cp.look(), false, 'no growth');
    write(db, 2);
    clock.ms = 3_000;
    assert.equal(await cp.look(), true, 'twice the heavy rate');
    assert.equal(cp.running, true);
  } finally {
    await db.close();
  }
});

it("the worker's checkpoints between writes let the WAL start over from its beginning, so it stays small", async () => {
  const { options, clock } = manual();
  const path = storePath();
  const { db, cp } = await walStore(path, options);
  try {
    assert.equal(await startWorker(db, cp, clock), true);
    for (let round = 0; round < 40; round++) {
      write(db, 1);
      const result = await cp.checkpoint();
      assert.ok(result !== undefined && result.busy === 0 && result.checkpointed === result.log, `round ${round}`);
    }
    // 42 MB written; without the worker's checkpoints the WAL would hold all of it (the writer's
    // own autocheckpoint waits for 16,000 pages); with them it starts over at each write.
    assert.ok(walBytes(path) < 4 * MB, `WAL of ${walBytes(path)} bytes`);
  } finally {
    await db.close();
  }
});

it('steady heavy writes keep the worker running, though the WAL starts over after each checkpoint', async () => {
  // Heavy from 64 KB a second: a round of 1 MB would have to take 16 s to look quiet.
  const { options, clock } = manual({ heavyBytesPerSecond: 64 * 1024, quietMs: 3 });
  const { db, cp } = await walStore(storePath(), options);
  try {
    assert.equal(await startWorker(db, cp, clock), true);
    for (let round = 0; round < 10; round++) {
      write(db, 1);
      assert.notEqual(await cp.checkpoint(), undefined, `round ${round}`);
    }
    assert.equal(cp.running, true);
  } finally {
    await db.close();
  }
});

it('the worker ends after quiet checkpoints, and starts again when heavy writes return', async () => {
  const { options, clock } = manual({ checkpointEveryMs: 1, quietMs: 3 });
  const { db, cp } = await walStore(storePath(), options);
  try {
    assert.equal(await startWorker(db, cp, clock), true);
    await cp.stopped();
    assert.equal(cp.running, false);
    assert.equal(await cp.checkpoint(), undefined, 'no worker to ask');
    // The writer's next transaction starts the WAL over: growth shows once writes pass the file's
    // old end (about 2 MB; a larger file is cut to WAL_KEPT_BYTES at the restart).
    write(db, 4);
    clock.ms += 1_000;
    assert.equal(await cp.look(), true);
  } finally {
    await db.close();
  }
});

it('closing the store ends the worker first, and leaves no -wal or -shm file', async () => {
  const { options, clock } = manual();
  const path = storePath();
  const { db, cp } = await walStore(path, options);
  assert.equal(await startWorker(db, cp, clock), true);
  await db.close();
  assert.equal(cp.running, false);
  assert.deepEqual([existsSync(`${path}-wal`), existsSync(`${path}-shm`)], [false, false]);
  assert.equal(await cp.look(), false, 'a closed store starts none');
});

it('two closes at once stop the worker once, without a warning', async () => {
  const { options, clock } = manual();
  const { db, cp } = await walStore(storePath(), options);
  const { warnings, stop } = checkpointerWarnings();
  try {
    assert.equal(await startWorker(db, cp, clock), true);
    await Promise.all([cp.close(), cp.close()]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(warnings, []);
  } finally {
    stop();
    await db.close();
  }
});

it('a process with nothing else to do waits for the worker and the store to close', async () => {
  const path = storePath();
  const proc = new Proc(
    spawn(process.execPath, ['--import', 'tsx', CHILD, path], { stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  assert.equal(await proc.exited, 0, proc.out);
  assert.equal(proc.out, 'running true\nclosed\n');
  assert.deepEqual([existsSync(`${path}-wal`), existsSync(`${path}-shm`)], [false, false]);
});

it('a worker that fails warns once and no other starts: checkpoints stay with the writer', async () => {
  const { options, clock } = manual();
  // A WAL without its database: the worker cannot open the store.
  const path = join(sqliteFolder('checkpointer-fail-test-').dir, 'missing.db');
  writeFileSync(`${path}-wal`, '');
  const cp = new WalCheckpointer(path, options);
  const { warnings, stop } = checkpointerWarnings();
  try {
    await cp.look();
    writeFileSync(`${path}-wal`, Buffer.alloc(2 * MB));
    clock.ms = 1_000;
    assert.equal(await cp.look(), true);
    await cp.stopped();
    writeFileSync(`${path}-wal`, Buffer.alloc(4 * MB));
    clock.ms = 2_000;
    assert.equal(await cp.look(), false);
    assert.deepEqual(warnings, ['SQLite checkpoint worker stopped: SQLITE_CANTOPEN; checkpoints run on commit again']);
  } finally {
    stop();
    await cp.close();
  }
});
