// editMessageReplyMarkup read the message outside its transaction and wrote its content back with
// the new keyboard: an editMessageText committed in between was reverted, and both were answered
// ok (an audit lost 32 of 60 such pairs on PostgreSQL). An edit now reads the message in its
// transaction, locked, and a keyboard edit keeps the content it finds there. Shown here without a
// race: while a third transaction holds the message's row, a text edit and then a keyboard edit
// queue on it; released, they run in that order, and the message keeps both.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describePostgres } from './helpers/app.js';
import { newBot } from './helpers/delivery.js';
import { createUsers } from './helpers/factories.js';
import { blockedBy, holdTransaction, tracked } from './helpers/pg-locks.js';

interface Answer {
  ok: boolean;
  result?: { message_id: number; chat: { id: number } };
  description?: string;
}

const keyboard = (data: string) => ({ inline_keyboard: [[{ text: data, callback_data: data }]] });

await describePostgres('a keyboard edit and a text edit of one message at once', (t) => {
  it('keeps both: the text edit committed first is not reverted', { timeout: 30_000 }, async () => {
    const { app, services: s } = t();
    const [user] = await createUsers(app, 1);
    if (user === undefined) throw new Error('no user');
    const bot = await newBot(app, 'Editor');
    const call = async (method: string, body: Record<string, unknown>): Promise<Answer> =>
      (await app.inject({ method: 'POST', url: `/telegram/bot${bot.telegram_token}/${method}`, payload: body })).json();

    const sent = await call('sendMessage', { chat_id: user.user_id, text: 'old', reply_markup: keyboard('a') });
    assert.ok(sent.result !== undefined, JSON.stringify(sent));
    const target = { chat_id: sent.result.chat.id, message_id: sent.result.message_id };
    const row = () =>
      s.db.k
        .selectFrom('outbox_messages')
        .select(['message_id', 'content', 'reply_markup'])
        .where('telegram_message_id', '=', target.message_id)
        .executeTakeFirstOrThrow();
    const { message_id } = await row();

    const held = await holdTransaction(s.db.k, async (tx) => {
      await tx.selectFrom('outbox_messages').select('seq').where('message_id', '=', message_id).forUpdate().execute();
    });
    try {
      const text = tracked(call('editMessageText', { ...target, text: 'new', reply_markup: keyboard('a') }));
      assert.ok(await blockedBy(s.db.k, held.pid, text.settled), 'the text edit waits for the row');
      const markup = tracked(call('editMessageReplyMarkup', { ...target, reply_markup: keyboard('b') }));
      assert.ok(await blockedBy(s.db.k, held.pid, markup.settled, 2), 'the keyboard edit waits behind it');
      await held.end();
      const answers = await Promise.all([text.promise, markup.promise]);
      assert.deepEqual(
        answers.map((a) => a.ok),
        [true, true],
        JSON.stringify(answers),
      );
    } finally {
      await held.end();
    }
    const final = await row();
    assert.equal(final.content, 'new', "the text edit's content");
    assert.deepEqual(JSON.parse(final.reply_markup ?? 'null'), keyboard('b'), "the keyboard edit's keyboard");
  });
});
