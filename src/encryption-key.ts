// The key for secrets at rest, checked against the store at every start: a key other than the one
// the store's secrets were sealed with is refused, naming the setting, where it used to start
// "ready" and answer 500 for every bot. Used by bootstrap.ts.
import type { Kysely } from 'kysely';
import type { Config } from './config.js';
import type { DB } from './db/types.js';
import { SecretBox } from './lib/crypto.js';
import { type EncryptionKey, KeySettingError, readEncryptionKey, saveKeyFile } from './lib/keys.js';

const KEY_CHECK = 'encryption_key_check';
const KEY_CHECK_PLAIN = 'open-platform encryption key check';

/** Whether `sealed` opens with `box`: a wrong key fails GCM's authentication. */
function opens(box: SecretBox, sealed: string): boolean {
  try {
    box.open(sealed);
    return true;
  } catch {
    return false;
  }
}

/**
 * Refuses a key other than the one the store's secrets were sealed with: started with it, the
 * platform looked ready but answered 500 for every bot and delivered no webhook. The store keeps a
 * value sealed on its first start and checks it on every start; a store from before the check gets
 * it once one of its secrets opens. A key file that did not exist is written only once it is
 * accepted, so a wrong KEY_FILE path leaves nothing behind. Answers false when another process
 * starting beside this one wrote the key file first: that key is the one to check.
 */
async function checkEncryptionKey(db: Kysely<DB>, found: EncryptionKey): Promise<boolean> {
  const box = new SecretBox(found.key);
  const which =
    found.setting === 'ENCRYPTION_KEY'
      ? 'ENCRYPTION_KEY does not open'
      : found.unsaved
        ? `there is no key file at ${found.path} to open`
        : `the key in ${found.path} does not open`;
  const wrong = new KeySettingError(
    `${found.setting}: ${which} the secrets in the database; set KEY_FILE (an absolute path) or ENCRYPTION_KEY to the key this database was created with`,
  );
  const stored = await db.selectFrom('meta').select('value').where('key', '=', KEY_CHECK).executeTakeFirst();
  if (stored !== undefined) {
    if (!opens(box, stored.value)) throw wrong;
    return true;
  }
  const secret =
    (await db.selectFrom('apps').select('app_secret_enc as sealed').limit(1).executeTakeFirst()) ??
    (await db
      .selectFrom('bots')
      .select('webhook_key_enc as sealed')
      .where('webhook_key_enc', 'is not', null)
      .limit(1)
      .executeTakeFirst());
  if (secret?.sealed != null && !opens(box, secret.sealed)) throw wrong;
  if (found.unsaved && !saveKeyFile(found.path, found.key)) return false;
  await db
    .insertInto('meta')
    .values({ key: KEY_CHECK, value: box.seal(KEY_CHECK_PLAIN) })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  // Another instance starting on a new store at the same moment may have sealed it first.
  const winner = await db.selectFrom('meta').select('value').where('key', '=', KEY_CHECK).executeTakeFirstOrThrow();
  if (!opens(box, winner.value)) throw wrong;
  return true;
}

/** The key for secrets at rest, checked against the store (KeySettingError when it cannot be used). */
export async function checkedEncryptionKey(db: Kysely<DB>, config: Config): Promise<Buffer> {
  const found = readEncryptionKey(config);
  if (await checkEncryptionKey(db, found)) return found.key;
  // Another process wrote its key file first: both use that one.
  const written = readEncryptionKey(config);
  await checkEncryptionKey(db, written);
  return written.key;
}
