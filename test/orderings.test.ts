// Lists read alike on SQLite and PostgreSQL: matching that does not depend on the store's case
// rules, and orderings that end on a unique key, so ties (rows of one instant) come back the same
// way every time.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { adminHeaders, describeStoresOnFakeClock } from './helpers/app.js';
import { applyEvents, createApp, createBot, createUsers, uid, type TestUser } from './helpers/factories.js';
import { searchApps } from '../src/modules/console/repo.js';
import { sql } from 'kysely';
import type { TestApp } from './helpers/app.js';

/** Byte order, as SQLite's BINARY collation and PostgreSQL's "C" compare (all the texts here are ASCII). */
const bytewise = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * On PostgreSQL, gives `table.column` a linguistic collation (ICU's en-US: case and punctuation
 * weigh less than letters), as a database created with such a locale has; SQLite has none.
 */
async function linguistic(t: TestApp, table: string, column: string): Promise<void> {
  if (t.store !== 'postgres') return;
  await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} type text collate "en-US-x-icu"`.execute(
    t.services.db.k,
  );
}

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

await describeStoresOnFakeClock('playground lists', (t) => {
  it('shows the latest 50 messages of one batch (one millisecond), oldest first', async () => {
    const [a, b] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
    const ids = Array.from({ length: 60 }, (_, i) => `${uid('m')}-${i}`);
    await applyEvents(
      t().app,
      ids.map((message_id) => ({
        type: 'message.created',
        data: { message_id, chat_type: 'private', from_user_id: a.user_id, to_user_id: b.user_id, kind: 'text' },
      })),
    );
    const { items } = await t().services.playground.conversation({
      type: 'private',
      userId: a.user_id,
      botUserId: b.user_id,
    });
    assert.deepEqual(
      items.map((i) => i.row.message_id),
      ids.slice(10),
    );
  });

  it('orders own bots of one millisecond by id, and groups by name in byte order, then id', async () => {
    const [dev] = (await createUsers(t().app, 1)) as [TestUser];
    const bots: string[] = [];
    for (let i = 0; i < 4; i++) bots.push((await createBot(t().app, dev.user_id, `bot ${i}`)).bot_user_id);
    const bot = bots[0] ?? '';
    await linguistic(t(), 'groups', 'name');
    const names = ['b', 'B', 'a_c', 'ab', 'A', 'A'];
    const groups = names.map((name) => ({ group_id: uid('g'), name }));
    await applyEvents(
      t().app,
      groups.flatMap((g) => [
        { type: 'group.upserted', data: { ...g, invite_url: `https://x.example/${g.group_id}` } },
        { type: 'group.member.joined', data: { group_id: g.group_id, user_id: dev.user_id } },
        { type: 'group.member.joined', data: { group_id: g.group_id, user_id: bot } },
      ]),
    );
    const place = await t().services.playground.place(dev.user_id, bot);
    assert.deepEqual(
      place.bots.filter((b) => b.role === 'own').map((b) => b.user_id),
      [...bots].sort(bytewise),
    );
    assert.deepEqual(
      place.groups.map((g) => [g.name, g.group_id]),
      [...groups]
        .sort((x, y) => bytewise(x.name, y.name) || bytewise(x.group_id, y.group_id))
        .map((g) => [g.name, g.group_id]),
    );
  });
});

await describeStoresOnFakeClock('redirect URIs', (t) => {
  it('are listed in byte order whatever the collation of the database', async () => {
    const [dev] = (await createUsers(t().app, 1)) as [TestUser];
    await linguistic(t(), 'app_redirect_uris', 'uri');
    const uris = ['https://b.example/', 'https://B.example/', 'https://a_c.example/', 'https://ab.example/'];
    const { app_id } = await createApp(t().app, dev.user_id, uris);
    const view = await t().services.developers.app(dev.user_id, app_id);
    assert.deepEqual(view.redirect_uris, [...uris].sort(bytewise));
  });
});
