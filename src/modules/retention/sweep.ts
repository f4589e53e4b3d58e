// Once a minute, each module deletes its own expired rows. Several instances may sweep at once: a
// delete of rows already gone deletes nothing. oauth_codes, refresh_tokens and token_families are
// deliberately kept: a used code or refresh token must stay known to detect its reuse (decisions.md
// section 5: a code used twice revokes every token issued from it).
import type { Kysely } from 'kysely';
import type { Db } from '../../db/connect.js';
import type { DB } from '../../db/types.js';
import type { Clock } from '../../lib/clock.js';
import { expireConsoleSessions } from '../console/index.js';
import { expireDeliveries } from '../delivery/index.js';
import { expireIdempotencyKeys } from '../messaging/index.js';
import { expireSessions } from '../sessions/index.js';

const SWEEP_EVERY_MS = 60_000;

/** Each deletes the rows of its module that have outlived their window at `now`. */
const EXPIRIES: readonly ((q: Kysely<DB>, now: number) => Promise<void>)[] = [
  expireIdempotencyKeys,
  expireSessions,
  expireConsoleSessions,
  expireDeliveries,
];

export class RetentionSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  /** Stops sweeping and waits for a sweep under way, so the store can close after it. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Deletes every expired row now, one module after another; one's failure stops none of the others. */
  async sweep(): Promise<void> {
    const now = this.clock.now();
    const failures: unknown[] = [];
    for (const expire of EXPIRIES) await expire(this.db.k, now).catch((e: unknown) => failures.push(e));
    if (failures.length > 0) throw failures[0];
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.running = this.sweep()
        // The store was unreachable: the rows wait for the next minute's sweep.
        .catch(() => undefined)
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.schedule();
        });
    }, SWEEP_EVERY_MS).unref();
  }
}
