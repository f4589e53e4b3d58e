// The operator's outbox feed (operator-api.md "Outbox"): a message's inline keyboard as stored.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { adminHeaders, describeStoresOnFakeClock } from './helpers/app.js';
import { botCall, result } from './helpers/delivery.js';
import { createBot, createUsers, type BotCreds, type TestUser } from './helpers/factories.js';

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
});
