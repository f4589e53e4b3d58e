// What the operator console reads and writes besides the domain services: its sessions, the audit
// trail, the bot and app search, and a bot's delivery counts.
import { sql, type Kysely } from 'kysely';
import { countOf, deleteOlder } from '../../db/rows.js';
import type { AuditLogTable, DB } from '../../db/types.js';

export async function insertSession(
  q: Kysely<DB>,
  row: { session_hash: string; operator_name: string; created_at: number; expires_at: number },
): Promise<void> {
  await q.insertInto('console_sessions').values(row).execute();
}

export const findSession = (q: Kysely<DB>, sessionHash: string) =>
  q
    .selectFrom('console_sessions')
    .select(['operator_name', 'expires_at'])
    .where('session_hash', '=', sessionHash)
    .executeTakeFirst();

export async function deleteSession(q: Kysely<DB>, sessionHash: string): Promise<void> {
  await q.deleteFrom('console_sessions').where('session_hash', '=', sessionHash).execute();
}

/** Deletes the sessions that no longer sign anyone in (the retention sweep). */
export async function expireSessions(q: Kysely<DB>, now: number): Promise<void> {
  await deleteOlder(q, 'console_sessions', ['session_hash'], 'expires_at', now, { inclusive: true });
}

export async function insertAudit(q: Kysely<DB>, row: Omit<AuditLogTable, 'seq'>): Promise<void> {
  await q.insertInto('audit_log').values(row).execute();
}

export const recentAudit = (q: Kysely<DB>, limit: number) =>
  q.selectFrom('audit_log').selectAll().orderBy('seq', 'desc').limit(limit).execute();

/**
 * Apps and bots whose name, id or owner id contains `text` (all when empty), newest first, ignoring
 * the case of ASCII letters on both stores (PostgreSQL's lower() folds other letters too, SQLite's not).
 */
export function searchApps(q: Kysely<DB>, text: string, limit: number) {
  let query = q
    .selectFrom('apps')
    .leftJoin('bots', 'bots.app_id', 'apps.app_id')
    .leftJoin('users as owner', 'owner.user_id', 'apps.owner_user_id')
    .select([
      'apps.app_id',
      'apps.kind',
      'apps.name',
      'apps.owner_user_id',
      'owner.name as owner_name',
      'bots.bot_user_id',
      'bots.webhook_url',
      'apps.created_at',
    ]);
  if (text !== '') {
    // The text is matched literally: its % and _ are escaped (SQLite has no default escape character).
    // lower() on both sides, as LIKE ignores ASCII case on SQLite but not on PostgreSQL.
    const like = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const matches = (column: string) => sql<boolean>`lower(${sql.ref(column)}) like lower(${like}) escape '\\'`;
    query = query.where((e) =>
      e.or(['apps.name', 'apps.app_id', 'apps.owner_user_id', 'bots.bot_user_id'].map(matches)),
    );
  }
  // app_id breaks ties of one millisecond, so a page of results is the same on every read.
  return query.orderBy('apps.created_at', 'desc').orderBy('apps.app_id', 'desc').limit(limit).execute();
}

export const ownerOfBot = async (q: Kysely<DB>, botUserId: string): Promise<string | undefined> =>
  (await q.selectFrom('bots').select('owner_user_id').where('bot_user_id', '=', botUserId).executeTakeFirst())
    ?.owner_user_id;

/** Updates waiting for the bot (by long polling or its webhook). */
export const pendingUpdates = (q: Kysely<DB>, botUserId: string) =>
  countOf(q.selectFrom('updates').where('bot_user_id', '=', botUserId));

/** Webhook delivery attempts since `since` (ms), and how many failed. */
export async function deliveriesSince(q: Kysely<DB>, botUserId: string, since: number) {
  const rows = await q
    .selectFrom('webhook_deliveries')
    .select((e) => [e.fn.countAll().as('attempts'), e.fn.count('error').as('failed')])
    .where('bot_user_id', '=', botUserId)
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return { attempts: Number(rows.attempts), failed: Number(rows.failed) };
}
