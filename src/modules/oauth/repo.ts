import type { Kysely } from 'kysely';
import type { DB, OauthCodesTable } from '../../db/types.js';

export async function insertCode(
  tx: Kysely<DB>,
  c: Omit<OauthCodesTable, 'used_at' | 'created_at'>,
  now: number,
): Promise<void> {
  await tx
    .insertInto('oauth_codes')
    .values({ ...c, used_at: null, created_at: now })
    .execute();
}

export const findCode = (tx: Kysely<DB>, codeHash: string) =>
  tx.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();

/** Marks the code used; false when another exchange used it first. */
export async function useCode(tx: Kysely<DB>, codeHash: string, now: number): Promise<boolean> {
  const r = await tx
    .updateTable('oauth_codes')
    .set({ used_at: now })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function insertFamily(
  tx: Kysely<DB>,
  f: { family_id: string; app_id: string; user_id: string; scope: string },
  now: number,
): Promise<void> {
  await tx
    .insertInto('token_families')
    .values({ ...f, revoked_at: null, created_at: now })
    .onConflict((oc) => oc.column('family_id').doNothing())
    .execute();
}

export const findFamily = (tx: Kysely<DB>, familyId: string) =>
  tx.selectFrom('token_families').selectAll().where('family_id', '=', familyId).executeTakeFirst();

export async function revokeFamily(tx: Kysely<DB>, familyId: string, now: number): Promise<void> {
  await tx
    .updateTable('token_families')
    .set({ revoked_at: now })
    .where('family_id', '=', familyId)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function insertRefresh(
  tx: Kysely<DB>,
  r: { token_hash: string; family_id: string; expires_at: number },
  now: number,
): Promise<void> {
  await tx
    .insertInto('refresh_tokens')
    .values({ ...r, used_at: null, created_at: now })
    .execute();
}

export const findRefresh = (tx: Kysely<DB>, tokenHash: string) =>
  tx.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();

export async function useRefresh(tx: Kysely<DB>, tokenHash: string, now: number): Promise<boolean> {
  const r = await tx
    .updateTable('refresh_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
