// The operator's outbox feeds (operator-api.md "Outbox"): a message's inline keyboard as stored,
// and edits, which keep a message's place in the send feed and reach the application through the
// edit feed (GET /internal/v1/messages/edits), each edited message once, as it is now.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { adminHeaders, describeStoresOnFakeClock } from './helpers/app.js';
import { botCall, result } from './helpers/delivery.js';
import { createBot, createUsers, type BotCreds, type TestUser } from './helpers/factories.js';
import { telegramIdOf } from '../src/modules/telegram/repo.js';

interface Page {
  messages: Record<string, unknown>[];
  next_cursor: string;
}

await describeStoresOnFakeClock('the operator outbox feeds', (t, clock) => {
  let bot: BotCreds;
  let alice: TestUser;

  const feed = async (url: string): Promise<Page> => {
    const r = await t().app.inject({ method: 'GET', url, headers: adminHeaders });
    assert.equal(r.statusCode, 200, r.body);
    return r.json<Page>();
  };
  /** Every page of a feed after `cursor`, `limit` at a time. */
  const readAll = async (path: string, cursor: string, limit = 1000): Promise<Page> => {
    const messages: Record<string, unknown>[] = [];
    for (let at = cursor; ;) {
      const page = await feed(`${path}?after=${at}&limit=${limit}`);
      messages.push(...page.messages);
      if (page.messages.length === 0) return { messages, next_cursor: page.next_cursor };
      at = page.next_cursor;
    }
  };
  const send = async (params: Record<string, unknown>) =>
    result(
      await botCall(t().app, 'sendMessage', bot.api_key, {
        chat_id: alice.user_id,
        chat_type: 'private',
        parse_mode: 'text',
        ...params,
      }),
    ) as { message_id: string; telegram_message_id: number };
  const edit = async (messageId: string, params: Record<string, unknown>) =>
    result(
      await botCall(t().app, 'editMessageText', bot.api_key, {
        chat_id: alice.user_id,
        chat_type: 'private',
        message_id: messageId,
        parse_mode: 'text',
        ...params,
      }),
    );
  const sent = (id: string, text: string, at: number) => ({
    id,
    chat_type: 'private',
    to_user_id: alice.user_id,
    from_user_id: bot.bot_user_id,
    object_name: 'text',
    content: text,
    mention_user_ids: [],
    created_at: new Date(at).toISOString(),
  });

  it('starts with a bot and a user', async () => {
    [alice] = (await createUsers(t().app, 1)) as [TestUser];
    bot = await createBot(t().app, alice.user_id, 'menu bot');
  });

  it('shows the inline keyboard of a message as the platform normalised and stored it, and no reply_markup without one', async () => {
    const start = (await readAll('/internal/v1/messages', '0')).next_cursor;
    const at = clock.now();
    // Empty fields mean "not given" and `u_r_l` is `url` (decisions.md section 7).
    const withKeys = await send({
      text: 'pick one',
      reply_markup: {
        inline_keyboard: [
          [
            { text: 'Site', u_r_l: 'https://site.example/a', callback_data: '' },
            { text: 'Yes', callback_data: 'yes', sub_text: '' },
          ],
          [{ text: 'Log in', login_url: { url: 'https://login.example/' } }],
        ],
        font_size: 14,
        font_color: '',
      },
    });
    const bare = await send({ text: 'no keys' });
    assert.deepEqual((await readAll('/internal/v1/messages', start)).messages, [
      {
        ...sent(withKeys.message_id, 'pick one', at),
        reply_markup: {
          font_size: 14,
          inline_keyboard: [
            [
              { text: 'Site', url: 'https://site.example/a' },
              { text: 'Yes', callback_data: 'yes' },
            ],
            [{ text: 'Log in', login_url: { url: 'https://login.example/' } }],
          ],
        },
      },
      sent(bare.message_id, 'no keys', at),
    ]);
  });

  it('an edit keeps the place of the message in the send feed and reaches the edit feed, once, as the message now is', async () => {
    const sendStart = (await readAll('/internal/v1/messages', '0')).next_cursor;
    const editStart = (await readAll('/internal/v1/messages/edits', '0')).next_cursor;
    assert.equal(editStart, '0', 'nothing edited yet');
    const sentAt = clock.now();
    const menu = await send({
      text: 'menu v1',
      reply_markup: { inline_keyboard: [[{ text: 'A', callback_data: 'a' }]] },
    });
    const note = await send({ text: 'note' });
    const read = await readAll('/internal/v1/messages', sendStart);
    assert.deepEqual(
      read.messages.map((m) => m.id),
      [menu.message_id, note.message_id],
    );
    assert.deepEqual(await feed(`/internal/v1/messages?after=${read.next_cursor}`), {
      messages: [],
      next_cursor: read.next_cursor,
    });

    clock.advance(1000);
    await edit(menu.message_id, {
      text: 'menu v2',
      reply_markup: { inline_keyboard: [[{ text: 'B', callback_data: 'b' }]] },
    });
    clock.advance(1000);
    const noteEditedAt = clock.now();
    // The Telegram surface edits through the same core: the keyboard alone.
    const aliceNumber = await telegramIdOf(t().services.db.k, alice.user_id);
    const telegramEdit = await botCall(
      t().app,
      'editMessageReplyMarkup',
      bot.api_key,
      {
        chat_id: aliceNumber,
        message_id: note.telegram_message_id,
        reply_markup: { inline_keyboard: [[{ text: 'Seen', callback_data: 'seen' }]] },
      },
      'json',
      `/telegram/bot${bot.telegram_token}/editMessageReplyMarkup`,
    );
    assert.equal(telegramEdit.status, 200, JSON.stringify(telegramEdit.body));
    clock.advance(1000);
    const menuEditedAt = clock.now();
    await edit(menu.message_id, {
      text: 'menu v3',
      reply_markup: { inline_keyboard: [[{ text: 'C', callback_data: 'c' }]] },
    });

    const menuNow = {
      ...sent(menu.message_id, 'menu v3', sentAt),
      reply_markup: { inline_keyboard: [[{ text: 'C', callback_data: 'c' }]] },
      edited_at: new Date(menuEditedAt).toISOString(),
    };
    const noteNow = {
      ...sent(note.message_id, 'note', sentAt),
      reply_markup: { inline_keyboard: [[{ text: 'Seen', callback_data: 'seen' }]] },
      edited_at: new Date(noteEditedAt).toISOString(),
    };
    // Nothing new after the send feed's cursor: the edits did not move either message.
    assert.deepEqual(await feed(`/internal/v1/messages?after=${read.next_cursor}`), {
      messages: [],
      next_cursor: read.next_cursor,
    });
    // The edit feed: the menu's two edits show it once, after the note's edit, in its last state; page by page alike.
    const edits = await readAll('/internal/v1/messages/edits', editStart);
    assert.deepEqual(edits.messages, [noteNow, menuNow]);
    assert.deepEqual((await readAll('/internal/v1/messages/edits', editStart, 1)).messages, [noteNow, menuNow]);
    assert.deepEqual(await feed(`/internal/v1/messages/edits?after=${edits.next_cursor}`), {
      messages: [],
      next_cursor: edits.next_cursor,
    });
    // The send feed from the start: send order, each message as it is now.
    assert.deepEqual((await readAll('/internal/v1/messages', sendStart)).messages, [menuNow, noteNow]);

    // An edit after the cursor brings the message back.
    clock.advance(1000);
    await edit(note.message_id, { text: 'note, later' });
    assert.deepEqual(await feed(`/internal/v1/messages/edits?after=${edits.next_cursor}`), {
      messages: [{ ...sent(note.message_id, 'note, later', sentAt), edited_at: new Date(clock.now()).toISOString() }],
      next_cursor: String(Number(edits.next_cursor) + 1),
    });
  });

  it('the edit feed refuses a limit outside 1..1000 or a cursor that is not a number (400 invalid_request)', async () => {
    for (const query of ['limit=0', 'limit=1001', 'limit=ten', 'after=abc', 'after=-1']) {
      const r = await t().app.inject({
        method: 'GET',
        url: `/internal/v1/messages/edits?${query}`,
        headers: adminHeaders,
      });
      assert.equal(r.statusCode, 400, query);
      assert.equal(r.json<{ error: string }>().error, 'invalid_request', query);
    }
  });
});
