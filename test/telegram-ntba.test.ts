// The Telegram-compatible bot API driven by node-telegram-bot-api (v2), a second real client
// beside grammY: it sends every call as a form (application/x-www-form-urlencoded, structured
// fields as JSON text), and reads results into its own types. Sends with inline keyboards, edits,
// chats and their administrators, commands, webhook settings, errors as TelegramApiError, and its
// long-polling pump with command and callback handlers. Both stores.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { before, it } from 'node:test';
import { Bot, InlineKeyboardBuilder, TelegramApiError } from 'node-telegram-bot-api';
import { describeStores } from './helpers/app.js';
import { applyEvents, createUsers, uid, type TestUser } from './helpers/factories.js';
import { newBot, say } from './helpers/delivery.js';
import * as telegram from '../src/modules/telegram/repo.js';

const refusal = async (call: Promise<unknown>): Promise<[number, string]> => {
  try {
    await call;
  } catch (e) {
    assert.ok(e instanceof TelegramApiError, `expected a TelegramApiError, got ${String(e)}`);
    return [e.errorCode, e.description];
  }
  assert.fail('the call succeeded');
};

await describeStores('Telegram bot API through node-telegram-bot-api', (t) => {
  let alice: TestUser;
  let bot: Bot;
  let botUserId = '';
  let aliceId = 0;
  let groupId = 0;
  const group = uid('g');

  const number = async (userId: string) => {
    const n = await telegram.telegramIdOf(t().services.db.k, userId);
    assert.ok(n !== undefined, `no number for ${userId}`);
    return n;
  };

  before(async () => {
    await t().app.listen({ host: '127.0.0.1', port: 0 });
    const apiRoot = `http://127.0.0.1:${(t().app.server.address() as AddressInfo).port}/telegram`;
    [alice] = (await createUsers(t().app, 1)) as [TestUser];
    const creds = await newBot(t().app, 'ntba bot');
    botUserId = creds.bot_user_id;
    bot = new Bot(`${await number(botUserId)}:${creds.api_key}`, { apiRoot });
    await applyEvents(t().app, [
      {
        type: 'group.upserted',
        data: {
          group_id: group,
          name: 'ntba testers',
          invite_url: `https://chat.example/${group}`,
          owner_id: alice.user_id,
        },
      },
      ...[alice.user_id, botUserId].map((user_id) => ({
        type: 'group.member.joined',
        data: { group_id: group, user_id },
      })),
    ]);
    aliceId = await number(alice.user_id);
    const [g] = await telegram.groupsByIds(t().services.db.k, [group]);
    assert.ok(g !== undefined, 'group numbered');
    groupId = g.telegram_id;
  });

  it('getMe, a send with HTML and an inline keyboard (as a form), its edits', async () => {
    const me = await bot.api.getMe();
    assert.equal(me.id, await number(botUserId));
    assert.equal(me.is_bot, true);
    const keyboard = new InlineKeyboardBuilder().text('Yes', 'yes').url('Site', 'https://example.com/').build();
    for (const chat_id of [aliceId, groupId]) {
      const sent = await bot.api.sendMessage({
        chat_id,
        text: '<b>Hi</b> there',
        parse_mode: 'HTML',
        reply_markup: keyboard,
      });
      assert.equal(sent.chat.id, chat_id);
      assert.equal(sent.text, 'Hi there');
      assert.deepEqual(sent.entities, [{ type: 'bold', offset: 0, length: 2 }]);
      assert.deepEqual(sent.reply_markup, {
        inline_keyboard: [
          [
            { text: 'Yes', callback_data: 'yes' },
            { text: 'Site', url: 'https://example.com/' },
          ],
        ],
      });
      const edited = await bot.api.editMessageText({ chat_id, message_id: sent.message_id, text: 'edited' });
      assert.ok(
        typeof edited === 'object' && edited.text === 'edited' && typeof edited.edit_date === 'number',
        'the edited Message',
      );
      const swapped = new InlineKeyboardBuilder().text('No', 'no').build();
      const marked = await bot.api.editMessageReplyMarkup({
        chat_id,
        message_id: sent.message_id,
        reply_markup: swapped,
      });
      assert.ok(typeof marked === 'object', 'the Message with its new keyboard');
      assert.deepEqual(marked.reply_markup, { inline_keyboard: [[{ text: 'No', callback_data: 'no' }]] });
    }
  });

  it('chats, members and administrators, commands and webhook settings', async () => {
    const chat = await bot.api.getChat({ chat_id: groupId });
    assert.deepEqual([chat.id, chat.type, chat.title], [groupId, 'supergroup', 'ntba testers']);
    const owner = await bot.api.getChatMember({ chat_id: groupId, user_id: aliceId });
    assert.deepEqual([owner.status, owner.user.id], ['creator', aliceId]);
    const admins = await bot.api.getChatAdministrators({ chat_id: groupId });
    assert.deepEqual(
      admins.map((m) => [m.status, m.user.id]),
      [['creator', aliceId]],
    );
    assert.equal(await bot.api.getChatMemberCount({ chat_id: groupId }), 2);
    assert.equal(await bot.api.sendChatAction({ chat_id: groupId, action: 'typing' }), true);
    const commands = [{ command: 'start', description: 'Start' }];
    assert.equal(await bot.api.setMyCommands({ commands, scope: { type: 'default' } }), true);
    assert.deepEqual(await bot.api.getMyCommands({}), commands);
    assert.equal(await bot.api.setWebhook({ url: 'https://203.0.113.10/hook', secret_token: 'abc_123' }), true);
    const info = await bot.api.getWebhookInfo();
    assert.equal(info.url, 'https://203.0.113.10/hook');
    assert.deepEqual(await refusal(bot.api.getUpdates({})), [
      409,
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    ]);
    assert.equal(await bot.api.deleteWebhook({}), true);
    assert.equal((await bot.api.getWebhookInfo()).url, '');
    assert.deepEqual(await refusal(bot.api.getChat({ chat_id: 'no-such-chat' })), [400, 'Bad Request: chat not found']);
  });

  it("its polling pump: /start gets a reply with a button, the button's press is answered", async () => {
    // Each handler says when it has run: the test waits on that, not on a timer.
    let started: (text: string) => void = () => undefined;
    let pressed: (data: string) => void = () => undefined;
    const start = new Promise<string>((resolve) => {
      started = resolve;
    });
    const press = new Promise<string>((resolve) => {
      pressed = resolve;
    });
    let replyId = 0;
    bot.command('start', async (ctx) => {
      const reply = await ctx.reply('started', {
        reply_markup: new InlineKeyboardBuilder().text('Go', 'go').build(),
      });
      replyId = reply.message_id;
      started(ctx.message?.text ?? '');
    });
    bot.on('callback_query', async (ctx) => {
      await ctx.answerCallbackQuery({ text: 'ok' });
      pressed(ctx.callbackQuery?.data ?? '');
    });
    const pump = bot.startPolling(undefined, { timeout: 1 });
    await say(t().app, { from: alice.user_id, to: botUserId, text: '/start now' });
    assert.equal(await start, '/start now');
    const [reply] = await t()
      .services.db.k.selectFrom('outbox_messages')
      .select('message_id')
      .where('telegram_message_id', '=', replyId)
      .execute();
    assert.ok(reply !== undefined, 'the reply is in the outbox');
    await applyEvents(t().app, [
      {
        type: 'button.clicked',
        data: { callback_id: uid('cb'), message_id: reply.message_id, user_id: alice.user_id, data: 'go' },
      },
    ]);
    assert.equal(await press, 'go');
    bot.stop();
    await pump;
    const answered = await t()
      .services.db.k.selectFrom('callback_queries')
      .select('answer_text')
      .where('message_id', '=', reply.message_id)
      .execute();
    assert.deepEqual(answered, [{ answer_text: 'ok' }]);
  });
});
