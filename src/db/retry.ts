// PostgreSQL can abort a transaction that raced another one (a unique key both inserted, a
// serialization failure, a deadlock). Run again, the transaction sees the winner's rows and
// takes its normal path (e.g. "already exists"), so retrying is both safe and correct.
const RETRYABLE = new Set(['23505', '40001', '40P01']);

const isRetryable = (e: unknown): boolean =>
  e instanceof Error && 'code' in e && typeof e.code === 'string' && RETRYABLE.has(e.code);

export async function retryOnConflict<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (attempt >= attempts || !isRetryable(e)) throw e;
    }
  }
}
