// PostgreSQL can abort a transaction that raced another one (a unique key both inserted, a
// serialization failure, a deadlock). Run again, the transaction sees the winner's rows and
// takes its normal path (e.g. "already exists"), so retrying is both safe and correct.
import { errorCode } from '../lib/error-code.js';

const RETRYABLE: ReadonlySet<string | undefined> = new Set(['23505', '40001', '40P01']);

const isRetryable = (e: unknown): boolean => RETRYABLE.has(errorCode(e));

export async function retryOnConflict<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (attempt >= attempts || !isRetryable(e)) throw e;
    }
  }
}
