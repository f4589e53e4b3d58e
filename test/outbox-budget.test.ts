// The operator's outbox feeds capped a page by rows only: 1,000 large messages (5,000-character
// content, ~57 KB keyboards, 1,000 mentions) made a 90 MB body. A page now also stops once the rows
// before its last hold PAGE_BYTES, and next_cursor follows the last row returned: a consumer that
// reads until an empty page gets every message once, in order, over more (and shorter) pages.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { insertOutbox, nextMessageNumbers } from '../src/modules/messaging/index.js';
import { PAGE_BYTES } from '../src/modules/outbox/service.js';
import { adminHeaders, describeStores } from './helpers/app.js';
import { newBot } from './helpers/delivery.js';
import { createUsers } from './helpers/factories.js';

interface Page {
  messages: { id: string; content: string }[];
  next_cursor: string;
}

/** Content sizes in bytes: a multi-byte character counts as its bytes; one row is past the whole budget. */
const SIZES = [
  ...Array.from({ length: 12 }, () => 400_000),
  PAGE_BYTES + 1,
  ...Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? 10 : 300_000)),
];

await describeStores('the outbox feeds fill a page up to a byte budget', (t) => {
  /** Every page of a feed after `cursor` until an empty one: the documented way to follow it. */
  const pages = async (path: string, cursor: string): Promise<Page[]> => {
    const read: Page[] = [];
    for (let at = cursor; ;) {
      const r = await t().app.inject({ method: 'GET', url: `${path}?after=${at}&limit=1000`, headers: adminHeaders });
      assert.equal(r.statusCode, 200, r.body);
      const page = r.json<Page>();
      if (page.messages.length === 0) {
        assert.equal(page.next_cursor, at, 'an empty page keeps the cursor');
        return read;
      }
      read.push(page);
      at = page.next_cursor;
    }
  };
  const bytes = (m: { content: string }) => Buffer.byteLength(m.content);
  /** Every message once, in order, and no page filled past the budget before its last message. */
  const checkPages = (read: Page[], ids: string[]) => {
    assert.deepEqual(
      read.flatMap((p) => p.messages.map((m) => m.id)),
      ids,
    );
    assert.ok(read.length >= 3, `${read.length} pages`);
    for (const page of read) {
      const before = page.messages.slice(0, -1).reduce((n, m) => n + bytes(m), 0);
      assert.ok(before < PAGE_BYTES, `a page held ${before} bytes before its last message`);
    }
    const huge = read.find((p) => p.messages.some((m) => bytes(m) > PAGE_BYTES));
    assert.equal(huge?.messages.at(-1)?.content.length, PAGE_BYTES + 1, 'a message past the budget ends its page');
  };

  it('send feed and edit feed: every message once, in order, over several pages', { timeout: 60_000 }, async () => {
    const s = t().services;
    const [user] = await createUsers(t().app, 1);
    if (user === undefined) throw new Error('no user');
    const bot = await newBot(t().app, 'Budget');
    const start = (await pages('/internal/v1/messages', '0')).at(-1)?.next_cursor ?? '0';
    const editStart = (await pages('/internal/v1/messages/edits', '0')).at(-1)?.next_cursor ?? '0';

    const ids = SIZES.map((_, i) => `msg_budget_${String(i).padStart(2, '0')}`);
    await s.work.run(async ({ tx, now }) => {
      const numbers = await nextMessageNumbers(tx, s.db.dialect, SIZES.length);
      await insertOutbox(
        tx,
        SIZES.map((size, i) => ({
          message_id: ids[i] ?? '',
          telegram_message_id: numbers[i] ?? 0,
          chat_type: 'private',
          group_id: null,
          to_user_id: user.user_id,
          from_user_id: bot.bot_user_id,
          app_id: null,
          object_name: 'text',
          title: null,
          // Two-byte characters where the size allows: the budget is in bytes, not characters.
          content: size % 2 === 0 ? 'é'.repeat(size / 2) : 'x'.repeat(size),
          normalized: null,
          mention_user_ids: '[]',
          reply_markup: null,
          created_at: now,
          edited_at: null,
        })),
      );
    });
    checkPages(await pages('/internal/v1/messages', start), ids);

    // Edited one at a time, last first: the edit feed's order is its own.
    const edited = [...ids].reverse();
    for (const id of edited) {
      await s.work.run(({ tx, now }) =>
        tx.updateTable('outbox_messages').set({ edited_at: now }).where('message_id', '=', id).execute(),
      );
    }
    checkPages(await pages('/internal/v1/messages/edits', editStart), edited);
  });
});
