// Which stores the suite runs on: SQLite always; PostgreSQL when reachable, and always in CI.
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
