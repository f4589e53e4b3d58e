// What bot libraries written against api.telegram.org send, and Telegram's server accepts: limits
// out of range (brought into range), Python's "True" for a boolean, null or empty JSON values (not
// given), ChatMember fields aiogram requires, command scopes named any way Telegram names a chat,
// chat actions, and a path without /bot<token>/; and the texts Telegram's server refuses with, which
// bots and libraries match on (an edit that changes nothing, through grammY). Both stores.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { before, it } from 'node:test';
import { Bot, GrammyError, InlineKeyboard } from 'grammy';
import { describeStores, outboxRows } from './helpers/app.js';
import { type Answer, botCall, say } from './helpers/delivery.js';
import {
  applyEvents,
  createBot,
  createGroupChat,
  createUsers,
  type BotCreds,
  type TestUser,
} from './helpers/factories.js';
import { MAX_ADMINISTRATORS } from '../src/modules/telegram/methods/chats.js';
import * as tg from '../src/modules/telegram/repo.js';

await describeStores('what Telegram bot libraries send', (t) => {
  let owner: TestUser;
  let user: TestUser;
  let bot: BotCreds;
  let groupId: string;
  before(async () => {
    ({ owner, user, bot, groupId } = await createGroupChat(t().app, 'moderator'));
  });
  const path = (method: string) => `/telegram/bot${bot.telegram_token}/${method}`;
  const telegram = (method: string, params: Record<string, unknown>, as: 'form' | 'json' = 'json') =>
    botCall(t().app, method, bot.api_key, params, as, path(method));
  const resultOf = (r: Answer, what = ''): unknown => {
    assert.equal(r.status, 200, `${what} ${JSON.stringify(r.body)}`.trim());
    assert.deepEqual(Object.keys(r.body), ['ok', 'result'], what);
    return r.body.result;
  };
  const refused = (r: Answer, description: string, what = '') => {
    assert.equal(r.status, 400, `${what} ${JSON.stringify(r.body)}`);
    assert.deepEqual(r.body, { ok: false, error_code: 400, description }, what);
  };
  const dm = (text: string) => say(t().app, { from: user.user_id, to: bot.bot_user_id, text });
  const pending = async () =>
    (resultOf(await telegram('getWebhookInfo', {})) as { pending_update_count: number }).pending_update_count;

  it('getUpdates brings limit and timeout into range instead of refusing them', async () => {
    await dm('one');
    await dm('two');
    for (const [limit, timeout, count] of [
      [0, 60, 1],
      [-5, 0, 1],
      [200, 3600, 2],
      ['1000', '-1', 2],
    ] as const) {
      const updates = resultOf(await telegram('getUpdates', { limit, timeout }, 'form'), `limit ${limit}`);
      assert.ok(Array.isArray(updates), 'an array of Updates');
      assert.equal(updates.length, count, `limit ${limit}`);
    }
    // Confirm them, so the tests below start with an empty queue.
    const last = resultOf(await telegram('getUpdates', { offset: -1 })) as { update_id: number }[];
    resultOf(await telegram('getUpdates', { offset: (last[0]?.update_id ?? 0) + 1 }));
    assert.equal(await pending(), 0);
  });

  it('a boolean is true for "true", "True", "yes" or "1", false for anything else (as Telegram reads it)', async () => {
    for (const [given, dropped] of [
      ['False', false],
      ['0', false],
      ['no', false],
      ['', false],
      ['True', true],
      ['YES', true],
      ['1', true],
      ['true', true],
    ] as const) {
      await dm(`drop ${given}`);
      const before = await pending();
      assert.ok(before > 0, 'an Update waits');
      assert.equal(resultOf(await telegram('deleteWebhook', { drop_pending_updates: given }, 'form'), given), true);
      assert.equal(await pending(), dropped ? 0 : before, `drop_pending_updates=${given}`);
    }
    // A JSON boolean is still one.
    await dm('json');
    assert.equal(resultOf(await telegram('deleteWebhook', { drop_pending_updates: true })), true);
    assert.equal(await pending(), 0);
  });

  it('a null, or an empty JSON parameter, is a parameter not given', async () => {
    const sent = (r: Answer, what: string) => {
      const m = resultOf(r, what) as Record<string, unknown>;
      assert.equal(m.text, 'plain', what);
      assert.equal('reply_markup' in m || 'entities' in m, false, what);
    };
    sent(await telegram('sendMessage', { chat_id: user.user_id, text: 'plain', reply_markup: '' }, 'form'), 'form');
    sent(await telegram('sendMessage', { chat_id: user.user_id, text: 'plain', entities: ' ' }, 'form'), 'blank');
    sent(
      await telegram('sendMessage', { chat_id: user.user_id, text: 'plain', entities: null, reply_markup: null }),
      'json nulls',
    );
    refused(await telegram('sendMessage', { chat_id: null, text: 'x' }), 'Bad Request: chat_id is empty');
  });

  it('getChatMember answers an owner and an administrator with the fields of their kind', async () => {
    const member = async (userId: string) =>
      resultOf(await telegram('getChatMember', { chat_id: groupId, user_id: userId }), userId) as Record<
        string,
        unknown
      >;
    const creator = await member(owner.user_id);
    assert.deepEqual({ ...creator, user: undefined }, { status: 'creator', user: undefined, is_anonymous: false });
    // ChatMemberAdministrator's fields that aiogram requires, by value: what a moderator may do.
    const admin = await member(bot.bot_user_id);
    const holding = (value: boolean) =>
      Object.keys(admin)
        .filter((k) => admin[k] === value)
        .sort();
    assert.equal(admin.status, 'administrator');
    assert.deepEqual(holding(true), [
      'can_delete_messages',
      'can_invite_users',
      'can_manage_chat',
      'can_restrict_members',
    ]);
    assert.deepEqual(holding(false), [
      'can_be_edited',
      'can_change_info',
      'can_delete_stories',
      'can_edit_stories',
      'can_manage_video_chats',
      'can_post_stories',
      'can_promote_members',
      'is_anonymous',
    ]);
    assert.deepEqual(Object.keys(await member(user.user_id)), ['status', 'user']);
  });

  it('getChatAdministrators: the owner, then admins and moderators as getChatMember shows them; no other bot', async () => {
    const [moderator, plain] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
    const otherBot = await createBot(t().app, owner.user_id, 'another admin bot');
    const admins = `ga${moderator.user_id}`;
    await applyEvents(t().app, [
      {
        type: 'group.upserted',
        data: {
          group_id: admins,
          name: 'admins',
          invite_url: `https://chat.example/${admins}`,
          owner_id: owner.user_id,
        },
      },
      ...[
        [owner.user_id, 'admin'],
        [otherBot.bot_user_id, 'admin'],
        [plain.user_id, 'member'],
        [moderator.user_id, 'moderator'],
        [bot.bot_user_id, 'admin'],
      ].map(([user_id, role]) => ({ type: 'group.member.joined', data: { group_id: admins, user_id, role } })),
    ]);
    const number = async (userId: string) => {
      const n = await tg.telegramIdOf(t().services.db.k, userId);
      assert.ok(n !== undefined, userId);
      return n;
    };
    const member = async (userId: string) =>
      resultOf(await telegram('getChatMember', { chat_id: admins, user_id: userId }), userId);
    const listed = resultOf(await telegram('getChatAdministrators', { chat_id: admins }));
    // One ChatMember shape: each as getChatMember answers it, in the order they joined, the owner first.
    assert.deepEqual(listed, [
      await member(owner.user_id),
      await member(moderator.user_id),
      await member(bot.bot_user_id),
    ]);
    const botNumber = await number(bot.bot_user_id);
    const powers = {
      can_be_edited: false,
      is_anonymous: false,
      can_manage_chat: true,
      can_delete_messages: true,
      can_manage_video_chats: false,
      can_restrict_members: true,
      can_invite_users: true,
      can_post_stories: false,
      can_edit_stories: false,
      can_delete_stories: false,
    };
    assert.deepEqual(listed, [
      {
        status: 'creator',
        user: { id: await number(owner.user_id), is_bot: false, first_name: owner.name },
        is_anonymous: false,
      },
      {
        status: 'administrator',
        user: { id: await number(moderator.user_id), is_bot: false, first_name: moderator.name },
        ...powers,
        can_promote_members: false,
        can_change_info: false,
      },
      {
        status: 'administrator',
        user: { id: botNumber, is_bot: true, first_name: 'test bot', username: `bot${botNumber}` },
        ...powers,
        can_promote_members: true,
        can_change_info: true,
      },
    ]);
    // The group by its number, in a form: the same list.
    const groupNumber = (resultOf(await telegram('getChat', { chat_id: admins })) as { id: number }).id;
    assert.deepEqual(
      resultOf(await telegram('getChatAdministrators', { chat_id: String(groupNumber) }, 'form')),
      listed,
    );

    refused(
      await telegram('getChatAdministrators', { chat_id: user.user_id }),
      'Bad Request: there are no administrators in the private chat',
    );
    refused(await telegram('getChatAdministrators', { chat_id: 'no-such-chat' }), 'Bad Request: chat not found');
    refused(await telegram('getChatAdministrators', {}), 'Bad Request: chat_id is empty');
    const elsewhere = `gx${moderator.user_id}`;
    await applyEvents(t().app, [
      {
        type: 'group.upserted',
        data: {
          group_id: elsewhere,
          name: 'x',
          invite_url: `https://chat.example/${elsewhere}`,
          owner_id: owner.user_id,
        },
      },
    ]);
    const r = await telegram('getChatAdministrators', { chat_id: elsewhere });
    assert.deepEqual(
      [r.status, r.body],
      [403, { ok: false, error_code: 403, description: 'Forbidden: bot is not a member of the group chat' }],
    );
  });

  it(`getChatAdministrators lists at most ${MAX_ADMINISTRATORS} administrators besides the owner, the earliest first`, async () => {
    const many = await createUsers(t().app, MAX_ADMINISTRATORS + 1);
    const big = `gb${many[0]?.user_id ?? ''}`;
    await applyEvents(t().app, [
      {
        type: 'group.upserted',
        data: { group_id: big, name: 'big', invite_url: `https://chat.example/${big}`, owner_id: owner.user_id },
      },
      ...[bot.bot_user_id, ...many.map((u) => u.user_id)].map((user_id) => ({
        type: 'group.member.joined',
        data: { group_id: big, user_id, role: 'moderator' },
      })),
    ]);
    const listed = resultOf(await telegram('getChatAdministrators', { chat_id: big })) as {
      user: { first_name: string };
    }[];
    assert.equal(listed.length, MAX_ADMINISTRATORS + 1);
    assert.deepEqual(
      listed.slice(2).map((m) => m.user.first_name),
      many.slice(0, MAX_ADMINISTRATORS - 1).map((u) => u.name),
    );
  });

  it("deleteMessage answers 404 as every method outside telegram-api.md's table does; nothing is removed", async () => {
    const before = await outboxRows(t());
    const own = resultOf(await telegram('sendMessage', { chat_id: groupId, text: 'stays' })) as { message_id: number };
    const r = await telegram('deleteMessage', { chat_id: groupId, message_id: own.message_id }, 'form');
    assert.deepEqual(
      { status: r.status, body: r.body },
      {
        status: 404,
        body: { ok: false, error_code: 404, description: 'Not Found' },
      },
    );
    assert.equal(await outboxRows(t()), before + 1, 'the sent message is still there');
  });

  it("an edit of a member's message in the chat is Telegram's \"message can't be edited\", of another chat's not found", async () => {
    const said = await say(t().app, { from: user.user_id, group: groupId, text: 'mine' });
    const theirs = (await tg.messageNumbers(t().services.db.k, [said.message_id])).get(said.message_id);
    const dm = await say(t().app, { from: user.user_id, to: bot.bot_user_id, text: 'private' });
    const dmNumber = (await tg.messageNumbers(t().services.db.k, [dm.message_id])).get(dm.message_id);
    const answers = [
      await telegram('editMessageText', { chat_id: groupId, message_id: theirs, text: 'changed' }),
      await telegram('editMessageReplyMarkup', { chat_id: groupId, message_id: theirs, reply_markup: null }),
      await telegram('editMessageText', { chat_id: user.user_id, message_id: dmNumber, text: 'changed' }),
      await telegram('editMessageText', { chat_id: user.user_id, message_id: theirs, text: 'changed' }),
      await telegram('editMessageReplyMarkup', { chat_id: groupId, message_id: dmNumber }),
    ].map((r) => [r.status, r.body]);
    const refusal = (description: string) => [400, { ok: false, error_code: 400, description }];
    assert.deepEqual(answers, [
      refusal("Bad Request: message can't be edited"),
      refusal("Bad Request: message can't be edited"),
      refusal("Bad Request: message can't be edited"),
      refusal('Bad Request: message to edit not found'),
      refusal('Bad Request: message to edit not found'),
    ]);
  });

  it('a platform id made of digits (as the application gives its users) still names its user', async () => {
    const digits = String(Date.now()).slice(-9);
    const [numeric] = (await createUsers(t().app, 1, { user_id: digits })) as [TestUser];
    await applyEvents(t().app, [
      { type: 'group.member.joined', data: { group_id: groupId, user_id: numeric.user_id } },
    ]);
    const chat = resultOf(await telegram('getChat', { chat_id: digits }), digits) as { id: number; type: string };
    assert.equal(chat.type, 'private');
    assert.notEqual(String(chat.id), digits, 'its Telegram number is another');
    for (const userId of [digits, chat.id, String(chat.id)]) {
      const m = resultOf(await telegram('getChatMember', { chat_id: groupId, user_id: userId }), String(userId));
      assert.equal((m as { status: string }).status, 'member', String(userId));
    }
  });

  it('a command scope names a chat by its number, the number as text or the platform id: one list', async () => {
    const chat = resultOf(await telegram('getChat', { chat_id: groupId })) as { id: number };
    const commands = [{ command: 'start', description: 'Start' }];
    const scope = (chatId: unknown, type = 'chat') => ({ type, chat_id: chatId });
    assert.equal(resultOf(await telegram('setMyCommands', { commands, scope: scope(chat.id) })), true);
    for (const id of [chat.id, String(chat.id), groupId])
      assert.deepEqual(resultOf(await telegram('getMyCommands', { scope: scope(id) }), String(id)), commands);
    // As form fields, the scope is JSON text.
    assert.deepEqual(
      resultOf(await telegram('getMyCommands', { scope: JSON.stringify(scope(groupId)) }, 'form')),
      commands,
    );
    assert.deepEqual(resultOf(await telegram('getMyCommands', { scope: scope(groupId, 'chat_administrators') })), []);
    assert.deepEqual(resultOf(await telegram('getMyCommands', {})), []);
    assert.equal(resultOf(await telegram('deleteMyCommands', { scope: scope(String(chat.id)) })), true);
    assert.deepEqual(resultOf(await telegram('getMyCommands', { scope: scope(chat.id) })), []);
  });

  it('a command scope that names no chat Telegram knows, or a bad language_code, is refused and stores nothing', async () => {
    const commands = [{ command: 'x', description: 'x' }];
    const set = (params: Record<string, unknown>) => telegram('setMyCommands', { commands, ...params });
    refused(await set({ scope: { type: 'chat' } }), 'Bad Request: scope: chat_id is required for type chat');
    refused(
      await set({ scope: { type: 'chat_member', chat_id: groupId } }),
      'Bad Request: scope: user_id is required for type chat_member',
    );
    refused(await set({ scope: { type: 'chat', chat_id: 'no-such-chat' } }), 'Bad Request: chat not found');
    refused(await set({ scope: { type: 'chat', chat_id: -999_999_999_999 } }), 'Bad Request: chat not found');
    refused(
      await set({ scope: { type: 'chat_member', chat_id: groupId, user_id: 999_999_999_999 } }),
      'Bad Request: user not found',
    );
    for (const params of [
      { scope: { type: 'bogus' } },
      { scope: { type: 'chat', chat_id: 1.5 } },
      { language_code: 'english' },
    ]) {
      const r = await set(params);
      assert.equal(r.status, 400, JSON.stringify(params));
    }
    // JSON text can spell a number no id can be (1e309 is Infinity): refused, not stored as null.
    const r = await t().app.inject({
      method: 'POST',
      url: path('setMyCommands'),
      headers: { 'content-type': 'application/json' },
      payload: `{"commands":[{"command":"x","description":"x"}],"scope":{"type":"chat","chat_id":1e309}}`,
    });
    assert.equal(r.statusCode, 400, r.body);
    assert.deepEqual(resultOf(await telegram('getMyCommands', { scope: { type: 'default' } })), []);
  });

  it('sendChatAction takes the actions Telegram takes, in any case, and refuses others as Telegram does', async () => {
    for (const action of ['typing', 'UPLOAD_PHOTO', 'record_voice', 'upload_audio', 'choose_sticker'])
      assert.equal(resultOf(await telegram('sendChatAction', { chat_id: groupId, action }), action), true);
    for (const action of ['dancing', '', 'typing '])
      refused(
        await telegram('sendChatAction', { chat_id: groupId, action }),
        'Bad Request: wrong parameter action in request',
        action,
      );
  });

  it('a path without /bot<token>/ is Not Found, as on Telegram', async () => {
    const r = await t().app.inject({ method: 'GET', url: `/telegram/${bot.telegram_token}/getMe` });
    assert.equal(r.statusCode, 404);
    assert.deepEqual(r.json(), { ok: false, error_code: 404, description: 'Not Found' });
  });

  it("an edit that changes nothing is refused with Telegram's text through grammY, and changes nothing", async () => {
    await t().app.listen({ host: '127.0.0.1', port: 0 });
    const port = (t().app.server.address() as AddressInfo).port;
    const number = (resultOf(await telegram('getMe', {})) as { id: number }).id;
    const grammy = new Bot(`${number}:${bot.api_key}`, { client: { apiRoot: `http://127.0.0.1:${port}/telegram` } });
    const notModified = async (call: Promise<unknown>, what: string) => {
      try {
        await call;
        assert.fail(`${what}: the edit was taken`);
      } catch (e) {
        assert.ok(e instanceof GrammyError, `${what}: expected a GrammyError, got ${String(e)}`);
        assert.equal(e.error_code, 400, what);
        assert.equal(
          e.description,
          'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
          what,
        );
      }
    };
    const keyboard = new InlineKeyboard().text('Yes', 'yes').url('Site', 'https://example.com');
    const sent = await grammy.api.sendMessage(groupId, '<b>Pick</b>', { parse_mode: 'HTML', reply_markup: keyboard });
    const editedAt = async () =>
      (
        await t()
          .services.db.k.selectFrom('outbox_messages')
          .select('edited_at')
          .where('telegram_message_id', '=', sent.message_id)
          .executeTakeFirstOrThrow()
      ).edited_at;
    const same = { parse_mode: 'HTML' as const, reply_markup: keyboard };
    await notModified(grammy.api.editMessageText(groupId, sent.message_id, '<b>Pick</b>', same), 'same text');
    await notModified(grammy.api.editMessageReplyMarkup(groupId, sent.message_id, same), 'same keyboard');
    // Stored as sent: the keyboard's fields in another order are the same keyboard.
    const reordered = {
      inline_keyboard: [
        [
          { callback_data: 'yes', text: 'Yes' },
          { url: 'https://example.com', text: 'Site' },
        ],
      ],
    };
    refused(
      await telegram('editMessageReplyMarkup', {
        chat_id: groupId,
        message_id: sent.message_id,
        reply_markup: reordered,
      }),
      'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
      'reordered keyboard',
    );
    assert.equal(await editedAt(), null, 'no edit_date');
    // Removing a keyboard that is not there changes nothing either.
    const bare = await grammy.api.sendMessage(groupId, 'plain');
    await notModified(grammy.api.editMessageReplyMarkup(groupId, bare.message_id), 'no keyboard to remove');
    // A change is taken; the platform's own editMessageText still takes an edit that changes nothing.
    const changed = await grammy.api.editMessageText(groupId, sent.message_id, '<b>Pick</b>', { parse_mode: 'HTML' });
    assert.ok(changed !== true && !('reply_markup' in changed), 'the keyboard removed');
    assert.notEqual(await editedAt(), null, 'an edit_date');
    const native = await botCall(t().app, 'editMessageText', bot.api_key, {
      chat_id: groupId,
      chat_type: 'group',
      message_id: String(bare.message_id),
      text: 'plain',
    });
    assert.equal(native.body.ok, true, JSON.stringify(native.body));
  });

  it("refused parameters are described with the texts Telegram's server answers, and nothing is sent", async () => {
    const before = await outboxRows(t());
    const sent = resultOf(await telegram('sendMessage', { chat_id: groupId, text: 'to edit' })) as {
      message_id: number;
    };
    const cases: [string, Record<string, unknown>, string, ('form' | 'json')?][] = [
      ['sendMessage', { text: 'x' }, 'chat_id is empty'],
      ['sendMessage', { chat_id: groupId }, 'message text is empty'],
      ['sendMessage', { chat_id: groupId, text: '' }, 'message text is empty', 'form'],
      ['sendMessage', { chat_id: groupId, text: '<b></b>', parse_mode: 'HTML' }, 'message text is empty'],
      ['sendMessage', { chat_id: groupId, text: 'x'.repeat(5001) }, 'message is too long'],
      [
        'editMessageText',
        { chat_id: groupId, message_id: sent.message_id, text: 'x'.repeat(5001) },
        'message is too long',
      ],
      [
        'sendPhoto',
        { chat_id: groupId, photo: 'https://x.example/p.png', caption: 'x'.repeat(1025) },
        'message caption is too long',
      ],
      ['sendPhoto', { chat_id: groupId, photo: 'http://x.example/p.png' }, 'wrong file identifier/HTTP URL specified'],
      ['sendPhoto', { chat_id: groupId, photo: 'AgACAgIAAxkBAAI' }, 'wrong file identifier/HTTP URL specified'],
      [
        'sendMessage',
        { chat_id: groupId, text: '<a href="http://x.example">x</a>', parse_mode: 'HTML' },
        'can\'t parse entities: links must be https:// URLs (got "http://x.example")',
      ],
      [
        'sendMessage',
        { chat_id: groupId, text: '[x](javascript:alert(1))', parse_mode: 'MarkdownV2' },
        'can\'t parse entities: links must be https:// URLs (got "javascript:alert(1)")',
      ],
      [
        'sendMessage',
        { chat_id: groupId, text: 'x', reply_markup: '{"inline_keyboard":' },
        "can't parse reply keyboard markup JSON object",
        'form',
      ],
      [
        'sendMessage',
        {
          chat_id: groupId,
          text: 'x',
          reply_markup: { inline_keyboard: [[{ text: 'k', callback_data: 'é'.repeat(33) }]] },
        },
        'BUTTON_DATA_INVALID',
      ],
      ['editMessageText', { chat_id: groupId, text: 'x' }, 'message identifier is not specified'],
      ['editMessageReplyMarkup', { message_id: sent.message_id }, 'chat_id is empty'],
      ['editMessageText', { chat_id: 'no-such-chat', message_id: sent.message_id, text: 'x' }, 'chat not found'],
      ['getChatMember', { chat_id: groupId }, 'invalid user_id specified'],
      ['setMyCommands', { commands: [{ command: 'Bad-Command', description: 'x' }] }, 'BOT_COMMAND_INVALID'],
      ['setWebhook', { url: 'http://example.com/hook' }, 'bad webhook: An HTTPS URL must be provided for webhook'],
      [
        'answerCallbackQuery',
        { callback_query_id: 'no-such-query' },
        'query is too old and response timeout expired or query ID is invalid',
      ],
    ];
    // Every answer compared at once, so a failure shows each text that differs.
    const answers: unknown[] = [];
    for (const [method, params, , as] of cases) {
      const r = await telegram(method, params, as);
      answers.push({ method, status: r.status, body: r.body });
    }
    assert.deepEqual(
      answers,
      cases.map(([method, , description]) => ({
        method,
        status: 400,
        body: { ok: false, error_code: 400, description: `Bad Request: ${description}` },
      })),
    );
    assert.equal(await outboxRows(t()), before + 1, 'only the message to edit was sent');
    // Telegram's limit is 64 bytes of callback_data, not characters.
    const fits = { inline_keyboard: [[{ text: 'k', callback_data: 'é'.repeat(32) }]] };
    resultOf(await telegram('sendMessage', { chat_id: groupId, text: 'x', reply_markup: fits }), '64 bytes');
  });

  it('inline buttons for actions this platform cannot perform are kept as labels', async () => {
    const label = (text: string, action: Record<string, unknown>) => ({ text, ...action });
    const sent = resultOf(
      await telegram('sendMessage', {
        chat_id: groupId,
        text: 'buttons',
        reply_markup: {
          inline_keyboard: [
            [label('a', { switch_inline_query: 'q' }), label('b', { switch_inline_query_current_chat: '' })],
            [
              label('c', { switch_inline_query_chosen_chat: { allow_user_chats: true } }),
              label('d', { web_app: { url: 'https://x.example' } }),
            ],
            [label('e', { copy_text: { text: 'x' } }), label('f', { callback_game: {} }), label('g', { pay: true })],
            [label('h', { callback_data: 'h' })],
          ],
        },
      }),
    ) as { reply_markup: unknown };
    assert.deepEqual(sent.reply_markup, {
      inline_keyboard: [
        [{ text: 'a' }, { text: 'b' }],
        [{ text: 'c' }, { text: 'd' }],
        [{ text: 'e' }, { text: 'f' }, { text: 'g' }],
        [{ text: 'h', callback_data: 'h' }],
      ],
    });
    // As grammY's keyboard builder makes them.
    const built = new InlineKeyboard()
      .switchInline('Share', 'q')
      .switchInlineCurrent('Here')
      .webApp('App', 'https://x.example');
    const fromGrammy = resultOf(
      await telegram('sendMessage', { chat_id: groupId, text: 'grammY', reply_markup: built }),
    );
    assert.deepEqual((fromGrammy as { reply_markup: unknown }).reply_markup, {
      inline_keyboard: [[{ text: 'Share' }, { text: 'Here' }, { text: 'App' }]],
    });
  });
});
