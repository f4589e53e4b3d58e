// Migration 0012 (group_members.is_bot and its partial index): a store whose bots joined groups
// before it has them marked, so their group messages still reach them; and the fan-out's reads of
// a group's bots go through the partial index rather than every member row of the group.
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
import { botsInGroup, botsInGroups } from '../src/modules/delivery/repo.js';
import { dropSchema, startTestApp } from './helpers/app.js';
import { say } from './helpers/delivery.js';
import { withPlannedStore } from './helpers/query-plans.js';
import { PG_URL, storesUnderTest } from './helpers/stores.js';

const GROUP = 'g1';

/** The rows an older version wrote: a person, two bots (one whose user row predates it) in a group. */
async function oldStore(k: Kysely<DB>): Promise<void> {
  for (const [id, isBot] of [
    ['person', 0],
    ['bot', 1],
    ['late-bot', 0],
  ] as const) {
    await sql`insert into users (user_id, name, wallet_address, avatar, level, level_icon, is_bot, created_at, updated_at)
      values (${id}, ${id}, ${`0x${id}`}, '', 1, '', ${isBot}, 1000, 1000)`.execute(k);
    await sql`insert into user_stats (user_id) values (${id})`.execute(k);
  }
  for (const id of ['bot', 'late-bot']) {
    await sql`insert into bots (bot_user_id, app_id, owner_user_id, description, evm_address,
        private_message_policy, group_invite_policy, payload_format, created_at)
      values (${id}, ${`app-${id}`}, 'person', '', ${`0x${id}`}, 'everyone', 'everyone', 'json', 1000)`.execute(k);
  }
  await sql`insert into groups (group_id, name, invite_url, invite_url_norm, pic, is_charge, subchannel_number,
      maximum, created_at, member_count)
    values (${GROUP}, 'g', 'https://chat.example/g1', 'https://chat.example/g1', '', 0, 0, 0, '', 3)`.execute(k);
  for (const id of ['person', 'bot', 'late-bot']) {
    await sql`insert into group_members (group_id, user_id, role, joined_at)
      values (${GROUP}, ${id}, 'member', 1000)`.execute(k);
  }
}

for (const store of await storesUnderTest()) {
  await describe(`migration 0012 (group members that are bots) [${store}]`, () => {
    it('marks the bots already in groups, whose group messages still reach them', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'op-0012-'));
      const schema = `t_${randomBytes(6).toString('hex')}`;
      const sqliteFile = join(dir, 'platform.db');
      const db = await openDb(store === 'sqlite' ? `sqlite:${sqliteFile}` : PG_URL, { schema });
      try {
        const before = Object.fromEntries(Object.entries(migrations(db.dialect)).filter(([name]) => name < '0012'));
        await migrate(db, before);
        await oldStore(db.k);
      } finally {
        await db.close();
      }
      const t = await startTestApp(store, store === 'sqlite' ? { sqliteFile } : { schema });
      try {
        const k = t.services.db.k;
        const members = await k
          .selectFrom('group_members')
          .select(['user_id', 'is_bot'])
          .where('group_id', '=', GROUP)
          .orderBy('user_id')
          .execute();
        assert.deepEqual(members, [
          { user_id: 'bot', is_bot: 1 },
          { user_id: 'late-bot', is_bot: 1 },
          { user_id: 'person', is_bot: 0 },
        ]);
        assert.deepEqual(await botsInGroup(k, GROUP), [
          { bot_user_id: 'bot', permission: null },
          { bot_user_id: 'late-bot', permission: null },
        ]);
        await say(t.app, { from: 'person', group: GROUP, text: '@both', mentions: ['bot', 'late-bot'] });
        const queued = await k.selectFrom('updates').select('bot_user_id').orderBy('bot_user_id').execute();
        assert.deepEqual(
          queued.map((u) => u.bot_user_id),
          ['bot', 'late-bot'],
        );
      } finally {
        await t.close();
        rmSync(dir, { recursive: true, force: true });
        if (store === 'postgres') await dropSchema(schema);
      }
    });
  });
}

await describe('the fan-out reads a group’s bots through the partial index [sqlite]', () => {
  it('botsInGroup and botsInGroups search group_members_bots, not every member of the group', async () => {
    await withPlannedStore('0012-plan', async ({ k, run, plan }) => {
      await botsInGroup(k, GROUP);
      await botsInGroups({ tx: k, dialect: 'sqlite', now: 0, touch: () => undefined, last: () => undefined }, [GROUP]);
      assert.equal(run.length, 2);
      for (const q of run) {
        const details = await plan(q);
        assert.ok(
          details.some((d) => d.includes('SEARCH group_members USING COVERING INDEX group_members_bots')),
          `${q.sql}\n${details.join('\n')}`,
        );
      }
    });
  });
});
