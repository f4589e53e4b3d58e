import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../db/connect.js';
import { byteOrder, countOf } from '../../db/rows.js';
import type { AppRow, DB } from '../../db/types.js';

export type NewApp = Omit<AppRow, 'disabled' | 'created_at' | 'updated_at'>;

export async function insertApp(tx: Kysely<DB>, app: NewApp, redirectUris: readonly string[], now: number) {
  await tx
    .insertInto('apps')
    .values({ ...app, disabled: 0, created_at: now, updated_at: now })
    .execute();
  await replaceRedirectUris(tx, app.app_id, redirectUris);
}

export const findApp = (tx: Kysely<DB>, appId: string) =>
  tx.selectFrom('apps').selectAll().where('app_id', '=', appId).executeTakeFirst();

export async function setApiKey(
  tx: Kysely<DB>,
  appId: string,
  key: { api_key_hash: string; api_key_enc: string },
  now: number,
): Promise<boolean> {
  const r = await tx
    .updateTable('apps')
    .set({ ...key, updated_at: now })
    .where('app_id', '=', appId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function setAppSecret(tx: Kysely<DB>, appId: string, secretEnc: string, now: number): Promise<boolean> {
  const r = await tx
    .updateTable('apps')
    .set({ app_secret_enc: secretEnc, updated_at: now })
    .where('app_id', '=', appId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function replaceRedirectUris(tx: Kysely<DB>, appId: string, uris: readonly string[]): Promise<void> {
  await tx.deleteFrom('app_redirect_uris').where('app_id', '=', appId).execute();
  if (uris.length > 0) {
    await tx
      .insertInto('app_redirect_uris')
      .values([...new Set(uris)].map((uri) => ({ app_id: appId, uri })))
      .execute();
  }
}

export const appsOf = (tx: Kysely<DB>, ownerUserId: string) =>
  tx
    .selectFrom('apps')
    .leftJoin('bots', 'bots.app_id', 'apps.app_id')
    .select(['apps.app_id', 'apps.kind', 'apps.name', 'apps.created_at', 'bots.bot_user_id', 'bots.webhook_url'])
    .where('apps.owner_user_id', '=', ownerUserId)
    .orderBy('apps.created_at')
    .orderBy('apps.app_id')
    .execute();

export const redirectUris = async (tx: Kysely<DB>, dialect: Dialect, appId: string): Promise<string[]> =>
  (
    await tx
      .selectFrom('app_redirect_uris')
      .select('uri')
      .where('app_id', '=', appId)
      .orderBy(byteOrder(dialect, 'uri'))
      .execute()
  ).map((r) => r.uri);

/**
 * Serialises an owner's app and bot creation until the transaction ends, so two racing requests
 * cannot both take the last place. PostgreSQL only: SQLite's one writer already runs them in turn.
 */
export async function lockOwner(tx: Kysely<DB>, dialect: Dialect, ownerUserId: string): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${ownerUserId}))`.execute(tx);
}

/** The owner's applications for login and payment (bots counted apart, countBotsOf). */
export const countAppsOf = (tx: Kysely<DB>, ownerUserId: string) =>
  countOf(tx.selectFrom('apps').where('owner_user_id', '=', ownerUserId).where('kind', '=', 'app'));
