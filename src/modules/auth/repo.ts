// The credential look-ups: auth reads the apps table (apps own it) on every authenticated request.
import type { Db } from '../../db/connect.js';
import { arg, prepare } from '../../db/prepared.js';

/** What a credential is made of, by the key's hash or by the app's id. */
const credentialOf = (db: Db) =>
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
    ]);

/** Statements compiled once: a credential look-up runs on every authenticated request. */
export function appReads(db: Db) {
  return {
    credentialByKeyHash: prepare(db, credentialOf(db).where('apps.api_key_hash', '=', arg(0))),
    credentialByAppId: prepare(db, credentialOf(db).where('apps.app_id', '=', arg(0))),
  };
}
export type AppReads = ReturnType<typeof appReads>;
export type CredentialRow = NonNullable<Awaited<ReturnType<AppReads['credentialByKeyHash']['first']>>>;
