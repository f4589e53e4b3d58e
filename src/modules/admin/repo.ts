import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.js';

const KEY = 'admin_token_sha256';

/** The stored hash of the generated operator token, if one was kept. */
export const storedTokenHash = async (db: Kysely<DB>): Promise<string | undefined> =>
  (await db.selectFrom('meta').select('value').where('key', '=', KEY).executeTakeFirst())?.value;

/** Keeps `hash` as the operator token's unless one is already stored; answers the stored one. */
export async function keepTokenHash(db: Kysely<DB>, hash: string): Promise<string> {
  await db
    .insertInto('meta')
    .values({ key: KEY, value: hash })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const stored = await storedTokenHash(db);
  if (stored === undefined) throw new Error('the operator token hash was not kept');
  return stored;
}
