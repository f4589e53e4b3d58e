// The credential look-up: auth reads the apps table (apps own it) on every authenticated request.
import type { Db } from '../../db/connect.js';
import { arg, prepare } from '../../db/prepared.js';

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
