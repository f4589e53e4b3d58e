// Lists read alike on SQLite and PostgreSQL: matching that does not depend on the store's case
// rules, and orderings that end on a unique key, so ties (rows of one instant) come back the same
// way every time.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { adminHeaders, describeStoresOnFakeClock } from './helpers/app.js';
import { createApp, createBot, createUsers, type TestUser } from './helpers/factories.js';
import { searchApps } from '../src/modules/console/repo.js';

await describeStoresOnFakeClock('console search', (t) => {
  it('matches without regard to ASCII case on both stores (PostgreSQL LIKE is case-sensitive)', async () => {
    const [dev] = (await createUsers(t().app, 1)) as [TestUser];
    const bot = await createBot(t().app, dev.user_id, `Alpha Search ${dev.user_id}`);
    for (const q of [`alpha search ${dev.user_id}`, `ALPHA SEARCH ${dev.user_id.toUpperCase()}`]) {
      const res = await t().app.inject({
        method: 'GET',
        url: `/console/bots?q=${encodeURIComponent(q)}`,
        headers: adminHeaders,
      });
      assert.equal(res.statusCode, 200);
      assert.ok(res.body.includes(`/console/bots/${bot.bot_user_id}`), `found by ${q}`);
    }
  });

  it('lists apps created in the same millisecond by app id, newest first', async () => {
    const [dev] = (await createUsers(t().app, 1)) as [TestUser];
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await createApp(t().app, dev.user_id)).app_id);
    const found = await searchApps(t().services.db.k, dev.user_id, 100);
    assert.deepEqual(
      found.map((r) => r.app_id),
      [...ids].sort().reverse(),
    );
  });
});
