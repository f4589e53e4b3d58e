// A SQLite store whose WAL checkpointer (src/db/checkpointer.ts) looks and checkpoints only when a
// test asks, on a clock the test moves, and a way to write megabytes of WAL at once.
import { CHECKPOINTER_DEFAULTS, type CheckpointerOptions, type WalCheckpointer } from '../../src/db/checkpointer.js';
import { type Db, openDb } from '../../src/db/connect.js';

export const MB = 2 ** 20;

/** Options with timers an hour apart and writes heavy from 1 MB a second, on `clock`. */
export function manual(overrides: Partial<CheckpointerOptions> = {}): {
  options: CheckpointerOptions;
  clock: { ms: number };
} {
  const clock = { ms: 0 };
  const options: CheckpointerOptions = {
    ...CHECKPOINTER_DEFAULTS,
    heavyBytesPerSecond: MB,
    lookEveryMs: 3_600_000,
    checkpointEveryMs: 3_600_000,
    now: () => clock.ms,
    ...overrides,
  };
  return { options, clock };
}

/** Opens the store at `path` with a table to fill. */
export async function walStore(path: string, options: CheckpointerOptions): Promise<{ db: Db; cp: WalCheckpointer }> {
  const db = await openDb(`sqlite:${path}`, { checkpoints: options });
  if (db.native.dialect !== 'sqlite' || db.checkpointer === undefined) throw new Error('not SQLite on a file');
  db.native.writer.exec('create table blobs (n integer primary key, data blob not null)');
  return { db, cp: db.checkpointer };
}

/** Writes about `mb` MB of WAL in one transaction. */
export function write(db: Db, mb: number): void {
  if (db.native.dialect !== 'sqlite') throw new Error('not SQLite');
  const insert = db.native.writer.prepare('insert into blobs (data) values (randomblob(?))');
  db.native.writer.transaction(() => {
    for (let i = 0; i < mb * 16; i++) insert.run(64 * 1024);
  })();
}

/** Starts the worker: a first look, 2 MB written, a look a second later. */
export async function startWorker(db: Db, cp: WalCheckpointer, clock: { ms: number }): Promise<boolean> {
  await cp.look();
  write(db, 2);
  clock.ms += 1_000;
  return cp.look();
}
