import type { Kysely } from 'kysely';
import { deleteOlder } from '../../db/rows.js';
import type { DB } from '../../db/types.js';

/** Deletes the sessions that no longer sign anyone in (the retention sweep). */
export async function expireSessions(q: Kysely<DB>, now: number): Promise<void> {
  await deleteOlder(q, 'sessions', ['session_hash'], 'expires_at', now, true);
}
