// Migration 0009 on a store that already has edited messages: they are numbered in the order of
// their last edit, so the edit feed read from 0 shows them, and later edits are numbered after them.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openDb } from '../src/db/connect.js';
import { migrate, migrations } from '../src/db/migrate.js';
import { adminHeaders, dropSchema, startTestApp } from './helpers/app.js';
import { PG_URL, storesUnderTest } from './helpers/stores.js';

const row = (id: string, editedAt: number | null, n: number) => ({
  message_id: id,
  chat_type: 'private' as const,
  group_id: null,
  to_user_id: 'u1',
  from_user_id: 'b1',
  app_id: null,
  object_name: 'text',
  title: null,
  content: id,
  normalized: null,
  mention_user_ids: '[]',
  reply_markup: null,
  created_at: 1_000,
  edited_at: editedAt,
  telegram_message_id: n,
});

for (const store of await storesUnderTest()) {
  await describe(`migration 0009 (edit order) [${store}]`, () => {
    it('numbers the messages edited before it in the order of their last edit, and later edits after them', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'op-0009-'));
      const schema = `t_${randomBytes(6).toString('hex')}`;
      const sqliteFile = join(dir, 'platform.db');
      const db = await openDb(store === 'sqlite' ? `sqlite:${sqliteFile}` : PG_URL, { schema });
      try {
        const before = Object.fromEntries(Object.entries(migrations(db.dialect)).filter(([name]) => name < '0009'));
        await migrate(db, before);
        await db.k
          .insertInto('outbox_messages')
          .values([row('late', 3_000, 1), row('never', null, 2), row('early', 2_000, 3)])
          .execute();
      } finally {
        await db.close();
      }
      const t = await startTestApp(store, store === 'sqlite' ? { sqliteFile } : { schema });
      try {
        const edits = async (after: string) => {
          const r = await t.app.inject({
            method: 'GET',
            url: `/internal/v1/messages/edits?after=${after}`,
            headers: adminHeaders,
          });
          assert.equal(r.statusCode, 200, r.body);
          const page = r.json<{ messages: { id: string }[]; next_cursor: string }>();
          return { ids: page.messages.map((m) => m.id), next_cursor: page.next_cursor };
        };
        assert.deepEqual(await edits('0'), { ids: ['early', 'late'], next_cursor: '2' });
        await t.services.db.k
          .updateTable('outbox_messages')
          .set({ content: 'edited', edited_at: 4_000 })
          .where('message_id', '=', 'never')
          .execute();
        assert.deepEqual(await edits('2'), { ids: ['never'], next_cursor: '3' });
      } finally {
        await t.close();
        rmSync(dir, { recursive: true, force: true });
        if (store === 'postgres') await dropSchema(schema);
      }
    });
  });
}
