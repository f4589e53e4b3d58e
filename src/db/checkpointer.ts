// Copies a SQLite store's WAL back into its file on a worker thread while the store takes heavy writes.
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { codeOf } from '../lib/error-code.js';

/**
 * A checkpoint copies the pages the WAL holds back into the database file and syncs it. Left to
 * the connection that commits (autocheckpoint), it runs inside a commit on the event loop: under
 * the ingest bench's load 100-240 ms every fifty batches or so, a quarter of SQLite's time.
 * A second connection on a worker thread copies most of them instead: PASSIVE checkpoints never
 * take the write lock, so the writer goes on committing meanwhile. Under continuous writes they
 * seldom copy the last frame before the next commit, so the WAL rarely starts over by itself; the
 * writer's own autocheckpoint (every 16,000 pages) then copies only what the worker has not, and
 * the WAL starts over after it. Measured A/B on the ingest bench (alternating rounds, one host):
 * 48,400 events/s against 45,500, p99 143 ms against 186.
 * A worker costs about 16 MB of RSS (a V8 isolate), so it runs only while the store is written
 * heavily: it starts when the WAL file grew at the heavy rate since the last look, and ends once
 * the WAL has grown below that rate, on average, for quietMs.
 */
export interface CheckpointerOptions {
  /** Bytes of WAL a second from which writes count as heavy. */
  heavyBytesPerSecond: number;
  /** How often the WAL file's growth is looked at while no worker runs. */
  lookEveryMs: number;
  /** How often the worker checkpoints. */
  checkpointEveryMs: number;
  /** The worker ends once the WAL has grown below the heavy rate for this long. */
  quietMs: number;
  /** Milliseconds, for the rate between two looks (tests set it). */
  now: () => number;
}

export const CHECKPOINTER_DEFAULTS: CheckpointerOptions = {
  // Measured: 4 MB a second started a worker for single messages posted one after another (the
  // long-poll bench's probes, about 400 a second); the ingest bench writes over 100 MB a second.
  // Checkpoints on commit cost the event loop about 2-4 ms per MB of WAL, so below this rate they
  // take at most about a tenth of it.
  heavyBytesPerSecond: 32 * 2 ** 20,
  lookEveryMs: 1_000,
  // 50 ms and 250 ms measured alike on the ingest bench.
  checkpointEveryMs: 50,
  quietMs: 30_000,
  now: () => performance.now(),
};

/**
 * The WAL's size after a restart once it has grown past this (connect.ts, journal_size_limit): a
 * file left at its largest by a burst would hide the growth of the next one, which overwrites it.
 */
export const WAL_KEPT_BYTES = 16 * 2 ** 20;

/** What `PRAGMA wal_checkpoint` answers: frames in the WAL, and how many of them are in the file. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

const driver = createRequire(import.meta.url).resolve('better-sqlite3');

// CommonJS, run by the worker as it is (eval), so the bundle needs no second entry point. The
// driver's path comes resolved from here. A checkpoint answers the WAL's frame count (`log`); the
// writer starts the WAL over after a checkpoint that copied every frame, and each start adds one
// to the checkpoint sequence number in the WAL's header (bytes 12-15, big-endian; SQLite's file
// format, section 4.1), read before the checkpoint: when it moved, all `log` frames are new. A
// checkpoint that lost the checkpoint lock to the writer's own answers busy and counts for nothing.
const WORKER_SOURCE = `
const { closeSync, openSync, readSync } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const pageBytes = db.pragma('page_size', { simple: true });
const wal = openSync(workerData.path + '-wal', 'r');
const header = Buffer.alloc(4);
const restarts = () => (readSync(wal, header, 0, 4, 12) === 4 ? header.readUInt32BE(0) : sequence);
let sequence = 0;
sequence = restarts();
let frames = 0;
// The current quiet run: when it began and the frames added since. A run whose frames exceed the
// heavy rate's share of its time starts over; one that lasts quietMs ends the worker.
let runAt = performance.now();
let runFrames = 0;
let ended = false;
function tick() {
  const started = restarts();
  const result = checkpoint.get();
  if (result.busy !== 0 || result.log < 0) return result;
  const now = performance.now();
  runFrames += started === sequence ? Math.max(result.log - frames, 0) : result.log;
  frames = result.log;
  sequence = started;
  if (runFrames > (workerData.heavyBytesPerSecond * (now - runAt)) / 1000 / pageBytes) {
    runAt = now;
    runFrames = 0;
  } else if (now - runAt >= workerData.quietMs) stop();
  return result;
}
const timer = setInterval(tick, workerData.checkpointEveryMs);
// Messages already posted still arrive after the port closes: a stop, or a checkpoint, after the end.
function stop() {
  if (ended) return;
  ended = true;
  clearInterval(timer);
  closeSync(wal);
  db.close();
  parentPort.close();
}
parentPort.on('message', (message) => {
  if (ended) return;
  if (message === 'checkpoint') parentPort.postMessage(tick());
  else stop();
});
`;

const isCheckpointResult = (m: unknown): m is CheckpointResult =>
  typeof m === 'object' &&
  m !== null &&
  'busy' in m &&
  typeof m.busy === 'number' &&
  'log' in m &&
  typeof m.log === 'number' &&
  'checkpointed' in m &&
  typeof m.checkpointed === 'number';

/** Small limits: the worker holds one connection and two statements. */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 1 };

export class WalCheckpointer {
  private worker: Worker | undefined;
  private exited: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private last: { bytes: number; at: number } | undefined;
  private failed = false;
  private closed = false;
  /** Someone waits for the worker to end (stopped, close): it stays referenced. */
  private awaited = false;
  private readonly replies: ((result: CheckpointResult | undefined) => void)[] = [];

  constructor(
    private readonly path: string,
    private readonly options: CheckpointerOptions = CHECKPOINTER_DEFAULTS,
  ) {
    this.timer = setInterval(() => void this.look(), options.lookEveryMs).unref();
  }

  /** Whether a worker runs now. */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Starts a worker if the WAL grew at the heavy rate since the last look; answers whether one runs. */
  async look(): Promise<boolean> {
    if (this.worker !== undefined || this.failed || this.closed) return this.running;
    const wal = await stat(`${this.path}-wal`).catch(() => undefined);
    const at = this.options.now();
    const bytes = wal?.size ?? 0;
    const last = this.last;
    this.last = { bytes, at };
    if (last === undefined) return false;
    // A smaller file was truncated at a restart since: at least its size is new.
    const grown = bytes >= last.bytes ? bytes - last.bytes : bytes;
    const heavy = grown > 0 && grown >= (this.options.heavyBytesPerSecond * (at - last.at)) / 1000;
    if (heavy) this.start();
    return this.running;
  }

  /** Runs one checkpoint on the worker now (tests ask); undefined when no worker runs or it ended first. */
  checkpoint(): Promise<CheckpointResult | undefined> {
    const worker = this.worker;
    if (worker === undefined) return Promise.resolve(undefined);
    // The process waits for the reply.
    worker.ref();
    return new Promise((resolve) => {
      this.replies.push(resolve);
      worker.postMessage('checkpoint');
    });
  }

  /** Resolves once the worker running now (if any) has ended (tests ask); the process waits for it meanwhile. */
  stopped(): Promise<void> {
    this.awaited = true;
    this.worker?.ref();
    return this.exited;
  }

  /** Ends the worker, its connection closed first, before the store's own connections close. */
  async close(): Promise<void> {
    this.closed = true;
    this.awaited = true;
    clearInterval(this.timer);
    // Unreferenced, the worker would let a process with nothing else to do exit before it ends,
    // leaving the store's own connections open (and the WAL beside the file).
    this.worker?.ref();
    this.worker?.postMessage('stop');
    await this.exited;
  }

  private start(): void {
    // Looked at again: the store may have closed, or another look started one, during the stat.
    if (this.worker !== undefined || this.failed || this.closed) return;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver,
        path: this.path,
        heavyBytesPerSecond: this.options.heavyBytesPerSecond,
        checkpointEveryMs: this.options.checkpointEveryMs,
        quietMs: this.options.quietMs,
      },
      resourceLimits: WORKER_LIMITS,
    });
    // Its timer must not keep a process alive that has nothing else to do.
    worker.unref();
    this.worker = worker;
    this.awaited = false;
    this.exited = new Promise((resolve) => {
      worker.once('exit', () => {
        this.worker = undefined;
        // Replies that can no longer come: the worker ended (idle, stopped or failed) first.
        for (const reply of this.replies.splice(0)) reply(undefined);
        resolve();
      });
    });
    worker.on('message', (result: unknown) => {
      if (isCheckpointResult(result)) this.replies.shift()?.(result);
      if (this.replies.length === 0 && !this.awaited) worker.unref();
    });
    // The connection's own autocheckpoint goes on bounding the WAL; one warning, no retries.
    worker.on('error', (e: unknown) => {
      this.failed = true;
      const reason = e instanceof Error ? e.message : (codeOf(e) ?? 'unknown error');
      process.emitWarning(`SQLite checkpoint worker stopped: ${reason}; checkpoints run on commit again`, {
        code: 'DB_CHECKPOINTER',
      });
    });
  }
}
