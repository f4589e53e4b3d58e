import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Config } from '../../config.js';
import { deleteBatched, deleteOlder, insertNew, insertRow } from '../../db/rows.js';
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
  // Nothing issued in it yet: issueRefresh, in the same transaction, moves expires_at to its token's.
  await insertNew(tx, 'token_families', { ...f, revoked_at: null, created_at: now, expires_at: now }, ['family_id']);
}

export const findFamily = (tx: Kysely<DB>, familyId: string) =>
  tx.selectFrom('token_families').selectAll().where('family_id', '=', familyId).executeTakeFirst();

export async function revokeFamily(tx: Kysely<DB>, familyId: string, now: number): Promise<void> {
  await stampOnce(tx, 'token_families', ['family_id', familyId], 'revoked_at', now);
}

/**
 * Stores a refresh token and moves its family's expiry to the token's: the family's expires_at is
 * the latest expiry of anything issued in it, the bound the retention sweep reads families by.
 */
export async function issueRefresh(
  tx: Kysely<DB>,
  r: { token_hash: string; family_id: string; expires_at: number },
  now: number,
): Promise<void> {
  await insertRow(tx, 'refresh_tokens', { ...r, used_at: null, created_at: now });
  await tx
    .updateTable('token_families')
    .set({ expires_at: r.expires_at })
    .where('family_id', '=', r.family_id)
    .where('expires_at', '<', r.expires_at)
    .execute();
}

export const findRefresh = (tx: Kysely<DB>, tokenHash: string) =>
  tx.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();

/** Marks the refresh token used; false when another refresh used it first. */
export const useRefresh = (tx: Kysely<DB>, tokenHash: string, now: number) =>
  stampOnce(tx, 'refresh_tokens', ['token_hash', tokenHash], 'used_at', now);

/** The family has no refresh token left. */
const tokenless = sql<SqlBool>`not exists (select 1 from refresh_tokens
  where refresh_tokens.family_id = token_families.family_id)`;

/**
 * The retention sweep's deletes, each keeping a row until it can no longer change an answer, and
 * each reading only the rows it deletes (through 0011's and 0013's indexes):
 * - a refresh token once expired: refresh answers -2012 for an expired token as for an unknown one,
 *   and reuse of an expired one revokes nothing (the expiry is checked first). It stays while the
 *   access token issued beside it may live (an ACCESS_TOKEN_TTL_S longer than REFRESH_TOKEN_TTL_S),
 *   since its family goes with the last token and a live access token needs its family;
 * - a family at the same bound on its expires_at (its latest token's expiry): then no token of it
 *   is left and none of its access tokens is live (each outlived by its refresh token's row), so it
 *   only answers a revoke, which answers alike without it;
 * - a used code with its family: its reuse then answers -2011 (nothing left to revoke), as an
 *   unknown code does;
 * - an unused code (it has no family) a refresh-token lifetime after it expired: until then it
 *   still answers -2010 rather than the -2011 of an unknown code.
 * Codes before their family, so that none outlives it.
 */
export async function expireOAuthGrants(
  q: Kysely<DB>,
  now: number,
  config: Pick<Config, 'accessTokenTtlS' | 'refreshTokenTtlS'>,
): Promise<void> {
  const refreshMs = config.refreshTokenTtlS * 1000;
  const tokenBound = now - Math.max(0, config.accessTokenTtlS * 1000 - refreshMs);
  await deleteOlder(q, 'refresh_tokens', ['token_hash'], 'expires_at', tokenBound, { inclusive: true });
  // `tokenless` too: a token whose expiry its family's did not follow (a row written by hand) keeps it.
  await deleteBatched(
    q,
    'oauth_codes',
    ['code_hash'],
    sql<SqlBool>`family_id in (select family_id from token_families
      where ${sql.ref('token_families.expires_at')} <= ${tokenBound} and ${tokenless})`,
  );
  await deleteOlder(q, 'token_families', ['family_id'], 'expires_at', tokenBound, {
    inclusive: true,
    where: tokenless,
  });
  await deleteOlder(q, 'oauth_codes', ['code_hash'], 'expires_at', now - refreshMs, { where: sql`used_at is null` });
}
