// One write as one transaction: the changes, their outbox rows and the cache keys they touch.
// The keys are announced only after the commit, so no instance drops a cache entry and reloads
// the old row before the new one is visible.
import type { Kysely } from 'kysely';
import type { Clock } from '../lib/clock.js';
import type { Invalidations } from '../lib/invalidation.js';
import type { Db } from './connect.js';
import { retryOnConflict } from './retry.js';
import type { DB } from './types.js';

export interface Work {
  readonly tx: Kysely<DB>;
  readonly now: number;
  /** Announces what the write changed (lib/invalidation.ts keys): cached copies are dropped after commit. */
  readonly touch: (key: string) => void;
}

export class UnitOfWork {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly invalidations: Invalidations,
  ) {}

  async run<T>(fn: (w: Work) => Promise<T>): Promise<T> {
    const now = this.clock.now();
    const touched = new Set<string>();
    const result = await retryOnConflict(() =>
      this.db.k.transaction().execute((tx) => {
        touched.clear();
        return fn({ tx, now, touch: (key) => touched.add(key) });
      }),
    );
    this.invalidations.announce([...touched]);
    return result;
  }
}
