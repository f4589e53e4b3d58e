// Sends that arrive together are written by the outbox writer in one transaction, which also
// draws their Telegram message numbers (src/modules/messaging/outbox-writer.ts): each answer
// carries the number its row was stored with, the numbers of sends written together are
// consecutive, and nothing else moves the counter.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeStores } from './helpers/app.js';
import { createUsers, type TestUser } from './helpers/factories.js';
import { botCall, newBot, result, say } from './helpers/delivery.js';
import { messageNumber } from './helpers/message-numbers.js';
import { newId } from '../src/lib/ids.js';
import { OutboxWriter } from '../src/modules/messaging/outbox-writer.js';

interface Sent {
  message_id: string;
  telegram_message_id: number;
}

const SENDS = 40;

await describeStores('the outbox writer numbers the sends it writes together', (t) => {
  it('concurrent sends: consecutive numbers, each answered with the number it was stored with', async () => {
    const [alice] = (await createUsers(t().app, 1)) as [TestUser];
    const bot = await newBot(t().app, 'numbering bot');
    // A user who wrote to the bot may be written to.
    const said = await say(t().app, { from: alice.user_id, to: bot.bot_user_id, text: 'hi' });
    const before = await messageNumber(t().services, said.message_id);

    const sent = await Promise.all(
      Array.from({ length: SENDS }, async (_, i) => {
        const r = await botCall(t().app, 'sendMessage', bot.api_key, { chat_id: alice.user_id, text: `n${i}` });
        return result(r, `send ${i}`) as Sent;
      }),
    );

    const numbers = sent.map((m) => m.telegram_message_id).sort((a, b) => a - b);
    assert.deepEqual(
      numbers,
      Array.from({ length: SENDS }, (_, i) => before + 1 + i),
      'consecutive, right after the last number drawn',
    );
    for (const m of sent) {
      assert.equal(await messageNumber(t().services, m.message_id), m.telegram_message_id, m.message_id);
    }
    const next = await say(t().app, { from: alice.user_id, to: bot.bot_user_id, text: 'after' });
    assert.equal(await messageNumber(t().services, next.message_id), before + SENDS + 1, 'one number per send drawn');
  });

  it('rows written in the same tick are one batch, numbered in the order they were given', async () => {
    const { db, work } = t().services;
    const [alice] = (await createUsers(t().app, 1)) as [TestUser];
    const bot = await newBot(t().app, 'writer bot');
    const writer = new OutboxWriter(work, db.dialect);
    const row = (i: number) => ({
      message_id: newId('msg'),
      chat_type: 'private' as const,
      group_id: null,
      to_user_id: alice.user_id,
      from_user_id: bot.bot_user_id,
      app_id: bot.app_id,
      object_name: 'text',
      title: null,
      content: `row ${i}`,
      normalized: null,
      mention_user_ids: '[]',
      reply_markup: null,
      created_at: Date.now(),
      edited_at: null,
    });
    const rows = Array.from({ length: SENDS }, (_, i) => row(i));
    const numbers = await Promise.all(rows.map((r) => writer.write(r)));
    const first = numbers[0] ?? NaN;
    assert.deepEqual(
      numbers,
      rows.map((_, i) => first + i),
      'consecutive, in the order given',
    );
    for (const [i, r] of rows.entries()) {
      assert.equal(await messageNumber(t().services, r.message_id), numbers[i], r.message_id);
    }
  });
});
