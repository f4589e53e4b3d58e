// Once a minute, each module deletes its own expired rows. Several instances may sweep at once: a
// delete of rows already gone deletes nothing. A row goes once it can no longer change an answer:
// OAuth codes and refresh tokens stay while their reuse would still revoke a live family
// (decisions.md section 5), button presses as long as undelivered Updates (UPDATE_RETENTION_S).
import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { Db } from '../../db/connect.js';
import type { DB } from '../../db/types.js';
import type { Clock } from '../../lib/clock.js';
import { expireConsoleSessions } from '../console/index.js';
import { expireCallbackQueries, expireDeliveries } from '../delivery/index.js';
import { expireIdempotencyKeys } from '../messaging/index.js';
import { expireOAuthGrants } from '../oauth/index.js';
import { expireSessions } from '../sessions/index.js';

const SWEEP_EVERY_MS = 60_000;

/** The windows set by configuration that expiries read. */
type Windows = Pick<Config, 'accessTokenTtlS' | 'refreshTokenTtlS' | 'updateRetentionS'>;

/** Each deletes the rows of its module that have outlived their window at `now`. */
const EXPIRIES: readonly ((q: Kysely<DB>, now: number, windows: Windows) => Promise<void>)[] = [
  expireIdempotencyKeys,
  expireSessions,
  expireConsoleSessions,
  expireDeliveries,
  expireCallbackQueries,
  expireOAuthGrants,
];

export class RetentionSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly windows: Windows,
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
    for (const expire of EXPIRIES) await expire(this.db.k, now, this.windows).catch((e: unknown) => failures.push(e));
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
