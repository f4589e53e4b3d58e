// The retention sweep reads OAuth grants by what it deletes only. Families were found by age and
// kept while a refresh token was left: every login older than a refresh-token lifetime that still
// refreshes was read by every sweep to be kept (300,000 of them, two ~300 ms statements a minute on
// SQLite's one writer). A family now carries `expires_at`, the latest expiry of the refresh tokens
// issued in it (oauth/repo.ts issueRefresh moves it with each), indexed; a used code goes with its
// family, found by its family_id, and an unused code by its expiry among the unused ones alone.
import { sql, type Kysely } from 'kysely';

export function familyExpiryMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const s = db.schema;
      await s
        .alterTable('token_families')
        .addColumn('expires_at', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      // A family without a token left has none live (its tokens went at their expiry, the family
      // stayed only by its age): created_at lets the next sweep take it, as a family's last token's would.
      await sql`update token_families set expires_at = coalesce(
        (select max(r.expires_at) from refresh_tokens r where r.family_id = token_families.family_id),
        created_at)`.execute(db);
      await s.createIndex('token_families_expires').on('token_families').column('expires_at').execute();
      await s.dropIndex('token_families_created').execute();
      await s.createIndex('oauth_codes_family').on('oauth_codes').column('family_id').execute();
      await s.dropIndex('oauth_codes_expires').execute();
      await s
        .createIndex('oauth_codes_unused_expires')
        .on('oauth_codes')
        .column('expires_at')
        .where(sql.ref('used_at'), 'is', null)
        .execute();
      // Used codes whose family went before this rule: a reuse answers -2011 with or without them.
      await sql`delete from oauth_codes where used_at is not null
        and not exists (select 1 from token_families f where f.family_id = oauth_codes.family_id)`.execute(db);
    },
  };
}
