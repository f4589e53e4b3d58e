import type { Kysely } from 'kysely';
import type { Db } from '../../db/connect.js';
import { arg, prepare } from '../../db/prepared.js';
import type { AppRow, DB } from '../../db/types.js';

export type NewApp = Omit<AppRow, 'disabled' | 'created_at' | 'updated_at'>;

export async function insertApp(tx: Kysely<DB>, app: NewApp, redirectUris: readonly string[], now: number) {
  await tx
    .insertInto('apps')
    .values({ ...app, disabled: 0, created_at: now, updated_at: now })
    .execute();
  if (redirectUris.length > 0) {
    await tx
      .insertInto('app_redirect_uris')
      .values([...new Set(redirectUris)].map((uri) => ({ app_id: app.app_id, uri })))
      .execute();
  }
}

export const findApp = (tx: Kysely<DB>, appId: string) =>
  tx.selectFrom('apps').selectAll().where('app_id', '=', appId).executeTakeFirst();

export const redirectUris = async (tx: Kysely<DB>, appId: string): Promise<string[]> =>
  (await tx.selectFrom('app_redirect_uris').select('uri').where('app_id', '=', appId).orderBy('uri').execute()).map(
    (r) => r.uri,
  );

/** Statements compiled once: the credential look-up runs on every authenticated request. */
export function appReads(db: Db) {
  return {
    credentialByKeyHash: prepare(
      db,
      db.k
        .selectFrom('apps')
        .leftJoin('bots', 'bots.app_id', 'apps.app_id')
        .select([
          'apps.app_id',
          'apps.kind',
          'apps.owner_user_id',
          'apps.app_secret_enc',
          'apps.disabled',
          'bots.bot_user_id',
        ])
        .where('apps.api_key_hash', '=', arg(0)),
    ),
  };
}
export type AppReads = ReturnType<typeof appReads>;
