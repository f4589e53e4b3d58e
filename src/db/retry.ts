// PostgreSQL can abort a transaction that raced another one (a unique key both inserted, a
// serialization failure, a deadlock). Run again, the transaction sees the winner's rows and
// takes its normal path (e.g. "already exists"), so retrying is both safe and correct.
import { setTimeout as pause } from 'node:timers/promises';
import { errorCode } from '../lib/error-code.js';

const RETRYABLE: ReadonlySet<string | undefined> = new Set(['23505', '40001', '40P01']);

const isRetryable = (e: unknown): boolean => RETRYABLE.has(errorCode(e));

/**
 * Each attempt gets past the rows its rivals committed, but with several instances creating the
 * same new rows (one batch's users, say) another may win the next one: six instances creating 60
 * users at once failed 15 batches of 36 with three attempts. A short random pause between attempts
 * keeps rivals from colliding again in step.
 */
export const CONFLICT_ATTEMPTS = 10;

export async function retryOnConflict<T>(run: () => Promise<T>, attempts = CONFLICT_ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (attempt >= attempts || !isRetryable(e)) throw e;
      await pause(Math.random() * 5 * attempt);
    }
  }
}
