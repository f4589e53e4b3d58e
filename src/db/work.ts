// One write as one transaction: the changes, their outbox rows and the cache keys they touch.
// The touched keys are what a write registers to happen after it: they are announced only after
// the commit (lib/invalidation.ts: caches drop entries, long polls and the dispatcher wake, here
// and on other instances), so no instance reloads the old row before the new one is visible, and
// nothing is woken for a write that rolled back. This is the only place in the application that
// opens a transaction.
//
// On SQLite the one writer connection runs one transaction at a time, and each commit writes
// every page it changed to the WAL. So writes that arrive while a transaction runs wait together
// and then share the next one (group commit): each in a savepoint of its own, one after another,
// so a write that fails is undone alone and the others still commit; each is answered, and its
// keys announced, only after that shared commit. A write that is alone when its turn comes runs
// in a plain transaction of its own. PostgreSQL runs concurrent transactions, one per write.
import type SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Clock } from '../lib/clock.js';
import type { Invalidations } from '../lib/invalidation.js';
import type { Db } from './connect.js';
import { retryOnConflict } from './retry.js';
import type { DB } from './types.js';

export interface Work {
  readonly tx: Kysely<DB>;
  readonly now: number;
  /** Announces what the write changed (lib/invalidation.ts keys), after commit: caches drop it, waiters wake. */
  readonly touch: (key: string) => void;
  /**
   * Runs `write` at the end of this write, in its transaction, after everything else it does (in
   * the order registered): for a statement that takes a lock held until the commit, such as an
   * outbox row's commit-order lock on PostgreSQL (0004), so others wait only for the commit.
   */
  readonly last: (write: () => Promise<void>) => void;
}

export interface Done<T> {
  result: T;
  touched: string[];
}

/** A write waiting for the SQLite writer, its result type hidden behind closures. */
interface Waiting {
  /** Runs the write inside the shared transaction; answers what to do once that commits. */
  attempt(tx: Kysely<DB>): Promise<() => void>;
  /** Refuses the write: it failed on its own and was undone. */
  fail(error: unknown): void;
  /** Runs the write in a transaction of its own and answers it. Never rejects. */
  alone(): Promise<void>;
}

/** Runs `fn` in `tx`, then what it registered to run last; what it touches goes to `touched`. */
async function perform<T>(fn: (w: Work) => Promise<T>, tx: Kysely<DB>, now: number, touched: Set<string>): Promise<T> {
  const lastWrites: Array<() => Promise<void>> = [];
  const result = await fn({
    tx,
    now,
    touch: (key) => touched.add(key),
    last: (write) => {
      lastWrites.push(write);
    },
  });
  for (const write of lastWrites) await write();
  return result;
}

/**
 * Most writes one shared transaction takes in, and how long it goes on taking them in: each write
 * is answered only at the shared commit, so its first write's answer must not be put off long (an
 * event batch of 1,000 takes ~25 ms; a transfer ~0.1 ms).
 */
const GROUP_LIMIT = 64;
const GROUP_MS = 50;

export class UnitOfWork {
  /** SQLite's writer connection, on which the savepoints of a shared transaction are set. */
  private readonly writer: SQLite.Database | undefined;
  private readonly waiting: Waiting[] = [];
  private draining = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly invalidations: Invalidations,
  ) {
    this.writer = db.native.dialect === 'sqlite' ? db.native.writer : undefined;
  }

  async run<T>(fn: (w: Work) => Promise<T>): Promise<T> {
    return (await this.runTouching(fn)).result;
  }

  /**
   * `run`, also answering the keys the write touched (announced all the same), for a caller that
   * reports them: the event batches, whose two pipelines test/events-differential.test.ts compares.
   */
  runTouching<T>(fn: (w: Work) => Promise<T>): Promise<Done<T>> {
    const now = this.clock.now();
    const writer = this.writer;
    if (writer === undefined) return this.alone(fn, now);
    return new Promise<Done<T>>((resolve, reject) => {
      this.waiting.push({
        attempt: async (tx) => {
          const touched = new Set<string>();
          const result = await perform(fn, tx, now, touched);
          // A listener that throws on the announcement fails this write's answer, not the group's.
          return () => {
            Promise.resolve(touched)
              .then((keys) => this.announce(result, keys))
              .then(resolve, reject);
          };
        },
        fail: reject,
        alone: () => this.alone(fn, now).then(resolve, reject),
      });
      if (!this.draining) {
        this.draining = true;
        // A transaction runs within one turn of the event loop (better-sqlite3 is synchronous), so
        // writes only wait together if the first waits for the turn's end: requests read in the
        // same turn (several connections ready at once) then share its transaction.
        setImmediate(() => void this.drain(writer));
      }
    });
  }

  private async alone<T>(fn: (w: Work) => Promise<T>, now: number): Promise<Done<T>> {
    const touched = new Set<string>();
    const result = await retryOnConflict(() =>
      this.db.k.transaction().execute((tx) => {
        // A retried attempt starts over: what a failed one registered is forgotten.
        touched.clear();
        return perform(fn, tx, now, touched);
      }),
    );
    return this.announce(result, touched);
  }

  private announce<T>(result: T, touched: Set<string>): Done<T> {
    const keys = [...touched];
    this.invalidations.announce(keys);
    return { result, touched: keys };
  }

  /** Runs the waiting writes, those that arrive meanwhile in the next transaction, until none wait. */
  private async drain(writer: SQLite.Database): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const group = this.waiting.splice(0, GROUP_LIMIT);
        const [first] = group;
        if (first !== undefined && group.length === 1) await first.alone();
        else await this.together(group, writer);
      }
    } finally {
      this.draining = false;
    }
  }

  /**
   * One transaction for the group, a savepoint for each write in it, as many writes as fit in
   * GROUP_MS (at least one): the rest go back to the head of the line. Never rejects.
   */
  private async together(group: Waiting[], writer: SQLite.Database): Promise<void> {
    const began = performance.now();
    const ran: Waiting[] = [];
    // Every answer waits for the commit, refusals too: a refusal may rest on the writes before it
    // (a balance they spent), which only count once committed.
    const answers: Array<() => void> = [];
    try {
      await this.db.k.transaction().execute(async (tx) => {
        for (const write of group) {
          if (ran.length > 0 && performance.now() - began >= GROUP_MS) break;
          ran.push(write);
          // The savepoint commands go straight to the connection Kysely holds for the transaction.
          writer.exec('SAVEPOINT write');
          try {
            const answer = await write.attempt(tx);
            writer.exec('RELEASE write');
            answers.push(answer);
          } catch (e) {
            // SQLite ends the whole transaction on a few errors (a full disk, say): then the
            // writes before this one are gone too, and the group is run again below.
            if (!writer.inTransaction) throw e;
            writer.exec('ROLLBACK TO write');
            writer.exec('RELEASE write');
            answers.push(() => {
              write.fail(e);
            });
          }
        }
      });
    } catch {
      // The shared transaction did not commit (or never began), so none of it was kept: each
      // write of the group that ran, or all of them if none did, runs again alone and is answered
      // by that run; the others go back to the head of the line.
      const again = ran.length > 0 ? ran : group;
      this.waiting.unshift(...group.slice(again.length));
      for (const write of again) await write.alone();
      return;
    }
    this.waiting.unshift(...group.slice(ran.length));
    for (const answer of answers) answer();
  }
}
