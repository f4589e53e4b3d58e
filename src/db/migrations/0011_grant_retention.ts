// The retention sweep's deletes of OAuth grants and button presses (src/modules/retention/), each
// through an index on what it reads: refresh tokens by expiry, families by age and (whether any
// token is left) refresh tokens by family, codes by expiry (families by their key), button presses
// by age. callback_queries(answered_at, seq) is read by no query (a press is found and answered by
// its callback_id, which has its unique index): dropped, it no longer costs every press a write.
import type { Kysely } from 'kysely';

export function grantRetentionMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const s = db.schema;
      await s.createIndex('refresh_tokens_expires').on('refresh_tokens').column('expires_at').execute();
      await s.createIndex('refresh_tokens_family').on('refresh_tokens').column('family_id').execute();
      await s.createIndex('token_families_created').on('token_families').column('created_at').execute();
      await s.createIndex('oauth_codes_expires').on('oauth_codes').column('expires_at').execute();
      await s.createIndex('callback_queries_created').on('callback_queries').column('created_at').execute();
      await s.dropIndex('callback_queries_answered').execute();
    },
  };
}
