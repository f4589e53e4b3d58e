// The database's side of the readiness check.
import { sql } from 'kysely';
import type { Db } from '../../db/connect.js';

/** Resolves once the database answers a trivial query. */
export async function pingDb(db: Db): Promise<void> {
  await sql`select 1`.execute(db.k);
}
