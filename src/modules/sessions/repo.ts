import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.js';

/** Deletes the sessions that no longer sign anyone in (the retention sweep). */
export async function expireSessions(q: Kysely<DB>, now: number): Promise<void> {
  await q.deleteFrom('sessions').where('expires_at', '<=', now).execute();
}
