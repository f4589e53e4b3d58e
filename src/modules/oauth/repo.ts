import { sql, type Kysely } from 'kysely';
import { insertNew, insertRow } from '../../db/rows.js';
import type { DB, OauthCodesTable } from '../../db/types.js';

/** Sets the row's `stamp` column to `now` unless it is set already; false when it was (another use came first). */
async function stampOnce<T extends 'oauth_codes' | 'refresh_tokens' | 'token_families'>(
  tx: Kysely<DB>,
  table: T,
  [keyColumn, key]: readonly [keyof DB[T] & string, string],
  stamp: keyof DB[T] & string,
  now: number,
): Promise<boolean> {
  const r = await sql`update ${sql.table(table)} set ${sql.ref(stamp)} = ${now}
    where ${sql.ref(keyColumn)} = ${key} and ${sql.ref(stamp)} is null`.execute(tx);
  return Number(r.numAffectedRows ?? 0) > 0;
}

export const insertCode = (tx: Kysely<DB>, c: Omit<OauthCodesTable, 'used_at' | 'created_at'>, now: number) =>
  insertRow(tx, 'oauth_codes', { ...c, used_at: null, created_at: now });

export const findCode = (tx: Kysely<DB>, codeHash: string) =>
  tx.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();

/** Marks the code used; false when another exchange used it first. */
export const useCode = (tx: Kysely<DB>, codeHash: string, now: number) =>
  stampOnce(tx, 'oauth_codes', ['code_hash', codeHash], 'used_at', now);

export async function insertFamily(
  tx: Kysely<DB>,
  f: { family_id: string; app_id: string; user_id: string; scope: string },
  now: number,
): Promise<void> {
  await insertNew(tx, 'token_families', { ...f, revoked_at: null, created_at: now }, ['family_id']);
}

export const findFamily = (tx: Kysely<DB>, familyId: string) =>
  tx.selectFrom('token_families').selectAll().where('family_id', '=', familyId).executeTakeFirst();

export async function revokeFamily(tx: Kysely<DB>, familyId: string, now: number): Promise<void> {
  await stampOnce(tx, 'token_families', ['family_id', familyId], 'revoked_at', now);
}

export const insertRefresh = (
  tx: Kysely<DB>,
  r: { token_hash: string; family_id: string; expires_at: number },
  now: number,
) => insertRow(tx, 'refresh_tokens', { ...r, used_at: null, created_at: now });

export const findRefresh = (tx: Kysely<DB>, tokenHash: string) =>
  tx.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();

/** Marks the refresh token used; false when another refresh used it first. */
export const useRefresh = (tx: Kysely<DB>, tokenHash: string, now: number) =>
  stampOnce(tx, 'refresh_tokens', ['token_hash', tokenHash], 'used_at', now);
