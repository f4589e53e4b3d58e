import type { Kysely } from 'kysely';
import { deleteOlder } from '../../db/rows.js';
import type { DB } from '../../db/types.js';

/** Deletes the sessions that no longer sign anyone in (the retention sweep). */
export async function expireSessions(q: Kysely<DB>, now: number): Promise<void> {
  await deleteOlder(q, 'sessions', ['session_hash'], 'expires_at', now, { inclusive: true });
}

export async function insertSession(
  tx: Kysely<DB>,
  s: { sessionHash: string; userId: string; expiresAt: number; now: number },
): Promise<void> {
  await tx
    .insertInto('sessions')
    .values({ session_hash: s.sessionHash, user_id: s.userId, expires_at: s.expiresAt, created_at: s.now })
    .execute();
}

export async function deleteSession(tx: Kysely<DB>, sessionHash: string): Promise<void> {
  await tx.deleteFrom('sessions').where('session_hash', '=', sessionHash).execute();
}

export const findSession = (q: Kysely<DB>, sessionHash: string) =>
  q.selectFrom('sessions').select(['user_id', 'expires_at']).where('session_hash', '=', sessionHash).executeTakeFirst();
