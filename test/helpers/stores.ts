// Which stores the suite runs on: SQLite always; PostgreSQL when reachable, and always in CI.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';

export type StoreKind = 'sqlite' | 'postgres';
export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function pgReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

let cached: Promise<StoreKind[]> | undefined;

export function storesUnderTest(): Promise<StoreKind[]> {
  cached ??= (async () => {
    if (await pgReachable()) return ['sqlite', 'postgres'];
    if (process.env.CI === 'true') throw new Error(`PostgreSQL is required in CI but ${PG_URL} is unreachable`);
    process.stdout.write(`# PostgreSQL not reachable at ${PG_URL}: PostgreSQL tests skipped (set TEST_DATABASE_URL)\n`);
    return ['sqlite'];
  })();
  return cached;
}

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisReachable(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return true;
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** Whether Redis answers; in CI it must, elsewhere a skip is announced with `what`. */
export async function redisUnderTest(what: string): Promise<boolean> {
  const up = await redisReachable();
  if (!up && process.env.CI === 'true') throw new Error(`Redis is required in CI but ${REDIS_URL} is unreachable`);
  if (!up) process.stdout.write(`# Redis not reachable at ${REDIS_URL}: ${what} skipped (set TEST_REDIS_URL)\n`);
  return up;
}

/**
 * A REDIS_PREFIX of its own for one suite's shared states (openSharedState's `prefix`): Redis
 * channels are global and test files run side by side on one Redis, so without it every instance's
 * start-up gap (and a gap after a loss) reached the other files' instances, answering their held
 * long polls empty, and nonces and buckets were shared. Instances that must hear each other share one.
 */
export const redisTestPrefix = (): string => `test-${randomBytes(6).toString('hex')}:`;
