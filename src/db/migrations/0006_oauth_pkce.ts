// PKCE (RFC 7636): the S256 challenge an authorization request gave, kept with its code; null for
// codes issued without one, which exchange without a verifier as before.
import type { Kysely } from 'kysely';

export function oauthPkceMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('oauth_codes').addColumn('code_challenge', 'text').execute();
    },
  };
}
