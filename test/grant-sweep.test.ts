// The retention sweep's deletes of OAuth grants read only what they delete (migration 0013): a
// login that keeps refreshing, however old, is neither deleted nor read by a sweep. Measured before:
// 300,000 such logins cost every sweep two ~300 ms statements on SQLite's one writer, deleting nothing.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Kysely, sql } from 'kysely';
import { openDb } from '../src/db/connect.js';
import { migrate, migrations } from '../src/db/migrate.js';
import type { DB } from '../src/db/types.js';
import * as repo from '../src/modules/oauth/repo.js';
import { dropSchema } from './helpers/app.js';
import { withPlannedStore } from './helpers/query-plans.js';
import { PG_URL, storesUnderTest } from './helpers/stores.js';

const DAY = 24 * 3600 * 1000;
const TTL = { accessTokenTtlS: 7200, refreshTokenTtlS: 14 * 24 * 3600 };
const REFRESH_TTL = TTL.refreshTokenTtlS * 1000;
const NOW = 100 * DAY;

/** A login exchanged at `at` (its code used), refreshed at each of `refreshes`. */
async function login(k: Kysely<DB>, id: string, at: number, refreshes: number[] = []): Promise<void> {
  const f = { family_id: id, app_id: 'app', user_id: 'u', scope: 'moment' };
  await repo.insertCode(
    k,
    { ...f, code_hash: `code-${id}`, redirect_uri: 'https://c.example/cb', expires_at: at + 1, code_challenge: null },
    at,
  );
  await repo.useCode(k, `code-${id}`, at);
  await repo.insertFamily(k, f, at);
  for (const t of [at, ...refreshes])
    await repo.issueRefresh(k, { token_hash: `rt-${id}-${t}`, family_id: id, expires_at: t + REFRESH_TTL }, t);
}

/** A code never exchanged: it has no family row. */
const unusedCode = (id: string, at: number) => ({
  code_hash: `unused-${id}`,
  app_id: 'app',
  user_id: 'u',
  redirect_uri: 'https://c.example/cb',
  scope: 'moment',
  family_id: `tf-${id}`,
  expires_at: at + 1,
  code_challenge: null,
});

const ids = async (k: Kysely<DB>, table: 'token_families' | 'oauth_codes') =>
  (
    await sql<{ id: string }>`select ${sql.ref(table === 'oauth_codes' ? 'code_hash' : 'family_id')} as id
    from ${sql.table(table)} order by id`.execute(k)
  ).rows.map((r) => r.id);

await describe('the grant sweep reads families by their expiry [sqlite]', () => {
  it('keeps a 30-day-old login that refreshes, through indexes bounded by expiry, never scanning a table', async () => {
    await withPlannedStore('0013-plan', async ({ k, run, plan: planOf }) => {
      await login(k, 'live', NOW - 30 * DAY, [NOW - 20 * DAY, NOW - 10 * DAY, NOW - DAY]);
      await login(k, 'ended', NOW - 30 * DAY);
      for (const [id, at] of [
        ['old', NOW - 30 * DAY],
        ['new', NOW - DAY],
      ] as const)
        await repo.insertCode(k, unusedCode(id, at), at);
      const live = await repo.findFamily(k, 'live');
      assert.equal(live?.expires_at, NOW - DAY + REFRESH_TTL, "the family's expiry follows its newest token");
      run.length = 0;
      await repo.expireOAuthGrants(k, NOW, TTL);
      assert.deepEqual(await ids(k, 'token_families'), ['live']);
      assert.deepEqual(await ids(k, 'oauth_codes'), ['code-live', 'unused-new']);
      const deletes = run.filter((q) => q.sql.startsWith('delete'));
      assert.equal(deletes.length, 4);
      const plans = await Promise.all(deletes.map(async (q) => (await planOf(q)).join('\n')));
      for (const plan of plans) assert.doesNotMatch(plan, /\bSCAN (token_families|oauth_codes|refresh_tokens)\b/, plan);
      const [, codes, families, unused] = plans;
      assert.match(
        families ?? '',
        /SEARCH token_families USING (COVERING )?INDEX token_families_expires \(expires_at<\?\)/,
      );
      assert.match(codes ?? '', /token_families_expires \(expires_at<\?\)/);
      assert.match(codes ?? '', /SEARCH oauth_codes USING (COVERING )?INDEX oauth_codes_family \(family_id=\?\)/);
      assert.match(
        unused ?? '',
        /SEARCH oauth_codes USING (COVERING )?INDEX oauth_codes_unused_expires \(expires_at<\?\)/,
      );
    });
  });
});

for (const store of await storesUnderTest()) {
  await describe(`migration 0013 (a family's expiry) [${store}]`, () => {
    it("gives each family its newest token's expiry (a tokenless one its creation) and drops used codes of gone families", async () => {
      const dir = mkdtempSync(join(tmpdir(), 'op-0013-'));
      const schema = `t_${randomBytes(6).toString('hex')}`;
      const db = await openDb(store === 'sqlite' ? `sqlite:${join(dir, 'platform.db')}` : PG_URL, { schema });
      try {
        await migrate(db, Object.fromEntries(Object.entries(migrations(db.dialect)).filter(([n]) => n < '0013')));
        const k = db.k;
        // As the older version wrote them: no expires_at on families.
        for (const [id, created] of [
          ['tf-live', 1000],
          ['tf-tokenless', 2000],
        ] as const)
          await sql`insert into token_families (family_id, app_id, user_id, scope, revoked_at, created_at)
            values (${id}, 'app', 'u', 'moment', null, ${created})`.execute(k);
        for (const [hash, expires] of [
          ['rt-1', 5000],
          ['rt-2', 9000],
        ] as const)
          await sql`insert into refresh_tokens (token_hash, family_id, expires_at, used_at, created_at)
            values (${hash}, 'tf-live', ${expires}, null, 1000)`.execute(k);
        for (const [hash, family, used] of [
          ['code-live', 'tf-live', 1000],
          ['code-gone', 'tf-gone', 1000],
          ['unused-x', 'tf-x', null],
        ] as const)
          await sql`insert into oauth_codes (code_hash, app_id, user_id, redirect_uri, scope, family_id, expires_at,
              used_at, created_at, code_challenge)
            values (${hash}, 'app', 'u', 'https://c.example/cb', 'moment', ${family}, 1500, ${used}, 1000, null)`.execute(
            k,
          );
        await migrate(db);
        const families = await k
          .selectFrom('token_families')
          .select(['family_id', 'expires_at'])
          .orderBy('family_id')
          .execute();
        assert.deepEqual(
          families.map((f) => [f.family_id, f.expires_at]),
          [
            ['tf-live', 9000],
            ['tf-tokenless', 2000],
          ],
        );
        assert.deepEqual(await ids(k, 'oauth_codes'), ['code-live', 'unused-x']);
      } finally {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
        if (store === 'postgres') await dropSchema(schema);
      }
    });
  });
}
