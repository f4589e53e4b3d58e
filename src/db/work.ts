// One write as one transaction: the changes, their outbox rows and the cache keys they touch.
// The touched keys are what a write registers to happen after it: they are announced only after
// the commit (lib/invalidation.ts: caches drop entries, long polls and the dispatcher wake, here
// and on other instances), so no instance reloads the old row before the new one is visible, and
// nothing is woken for a write that rolled back. This is the only place in the application that
// opens a transaction.
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
}

export class UnitOfWork {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly invalidations: Invalidations,
  ) {}

  async run<T>(fn: (w: Work) => Promise<T>): Promise<T> {
    return (await this.runTouching(fn)).result;
  }

  /**
   * `run`, also answering the keys the write touched (announced all the same), for a caller that
   * reports them: the event batches, whose two pipelines test/events-differential.test.ts compares.
   */
  async runTouching<T>(fn: (w: Work) => Promise<T>): Promise<{ result: T; touched: string[] }> {
    const now = this.clock.now();
    const touched = new Set<string>();
    const result = await retryOnConflict(() =>
      this.db.k.transaction().execute((tx) => {
        // A retried attempt starts over: what a failed one registered is forgotten.
        touched.clear();
        return fn({ tx, now, touch: (key) => touched.add(key) });
      }),
    );
    const keys = [...touched];
    this.invalidations.announce(keys);
    return { result, touched: keys };
  }
}
