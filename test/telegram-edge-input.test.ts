// Bot-method input at its edges, from a fuzz sweep: ids no counter can draw (PostgreSQL answered
// 500), entities that cut a character in two, rich-text tags that spell U+0000, and refused calls
// that must change nothing. Both stores, both bot surfaces.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeStores, outboxRows } from './helpers/app.js';
import { type Answer, botCall, failed, nextWait } from './helpers/delivery.js';
import { applyEvents, createBot, createUsers, type BotCreds, type TestUser } from './helpers/factories.js';

await describeStores(
  'bot-method input at its edges',
  (t) => {
    let user: TestUser;
    let bot: BotCreds;
    let groupId: string;
    before(async () => {
      [user] = (await createUsers(t().app, 1)) as [TestUser];
      bot = await createBot(t().app, user.user_id);
      groupId = `g${user.user_id}`;
      await applyEvents(t().app, [
        {
          type: 'group.upserted',
          data: { group_id: groupId, name: 'g', invite_url: `https://chat.example/${groupId}` },
        },
        // An administrator: exempt from the image level in its group, so it may send photos there.
        { type: 'group.member.joined', data: { group_id: groupId, user_id: bot.bot_user_id, role: 'admin' } },
        { type: 'group.member.joined', data: { group_id: groupId, user_id: user.user_id } },
      ]);
    });
    const telegram = (method: string, params: Record<string, unknown>, as: 'form' | 'json' = 'json') =>
      botCall(t().app, method, bot.api_key, params, as, `/telegram/bot${bot.telegram_token}/${method}`);
    const telegramResult = (r: Answer): unknown => {
      assert.deepEqual(Object.keys(r.body), ['ok', 'result'], JSON.stringify(r.body));
      assert.equal(r.body.ok, true, JSON.stringify(r.body));
      return r.body.result;
    };
    const telegramError = (r: Answer, code: number, description: string, what: string) => {
      assert.equal(r.status, code, `${what} ${JSON.stringify(r.body)}`);
      assert.deepEqual(r.body, { ok: false, error_code: code, description }, what);
    };

    it('an id no counter can draw (beyond 2^53, infinite, fractional) is not found, never a 500', async () => {
      for (const chatId of [1e21, -1e21, 2 ** 63, '9007199254740993', '9999999999999999', '-Infinity', '1e309']) {
        const what = `chat_id ${String(chatId)}`;
        telegramError(
          await telegram('sendMessage', { chat_id: chatId, text: 'x' }),
          400,
          'Bad Request: chat not found',
          what,
        );
        telegramError(await telegram('getChat', { chat_id: chatId }, 'form'), 400, 'Bad Request: chat not found', what);
        telegramError(
          await telegram('sendChatAction', { chat_id: chatId, action: 'typing' }),
          400,
          'Bad Request: chat not found',
          what,
        );
      }
      for (const userId of [1e21, '9999999999999999']) {
        const r = await telegram('getChatMember', { chat_id: groupId, user_id: userId });
        telegramError(r, 400, 'Bad Request: user not found', `user_id ${String(userId)}`);
      }
      for (const messageId of [1e20, '1e20', 2 ** 63]) {
        const what = `message_id ${String(messageId)}`;
        const edit = { chat_id: groupId, message_id: messageId, text: 'x' };
        telegramError(await telegram('editMessageText', edit), 400, 'Bad Request: message to edit not found', what);
        failed(await botCall(t().app, 'editMessageText', bot.api_key, edit), 404, 'message not found', what);
      }
    });

    it('integers as text are read as Telegram reads them there (10.0 is 10), and by digits only on the native surface', async () => {
      const form = { timeout: '0.0', limit: '5.0', offset: '0' };
      assert.deepEqual(telegramResult(await telegram('getUpdates', form, 'form')), []);
      const native = await botCall(t().app, 'getUpdates', bot.api_key, form, 'form');
      assert.deepEqual(native.body, {
        ok: false,
        result: null,
        error_code: 400,
        message: 'Bad Request: limit: must be integer',
        success: false,
      });
    });

    it('sendChatAction answers chat not found for a chat that does not exist, true for one that does', async () => {
      telegramError(
        await telegram('sendChatAction', { chat_id: 'no-such-chat', action: 'typing' }),
        400,
        'Bad Request: chat not found',
        'unknown',
      );
      assert.equal(telegramResult(await telegram('sendChatAction', { chat_id: groupId, action: 'typing' })), true);
    });

    it('an entity that cuts an emoji in two styles the whole emoji, and the text is stored as sent', async () => {
      const sent = await telegram('sendMessage', {
        chat_id: groupId,
        text: '😀😀ab',
        entities: [{ type: 'bold', offset: 1, length: 2 }],
      });
      const message = telegramResult(sent) as { message_id: number; text: string; entities: unknown };
      assert.equal(message.text, '😀😀ab');
      assert.deepEqual(message.entities, [{ type: 'bold', offset: 0, length: 4 }]);
      const stored = await t()
        .services.db.k.selectFrom('outbox_messages')
        .select('content')
        .where('telegram_message_id', '=', message.message_id)
        .executeTakeFirstOrThrow();
      assert.equal(stored.content, '{"uitag":"font","text":"😀😀","bold":"true"}ab');
    });

    it('text that spells a rich-text tag comes back as sent, styled by entities or as a caption', async () => {
      const tag = '{"uitag":"a","text":"click","href":"https://evil.example"}';
      const styled = await telegram('sendMessage', {
        chat_id: groupId,
        text: `a${tag}`,
        entities: [{ type: 'bold', offset: 0, length: 1 }],
      });
      const message = telegramResult(styled) as { text: string; entities: unknown };
      assert.equal(message.text, `a${tag}`);
      assert.deepEqual(message.entities, [{ type: 'bold', offset: 0, length: 1 }]);
      const photo = await telegram('sendPhoto', { chat_id: groupId, photo: 'https://x.example/p.png', caption: tag });
      assert.equal((telegramResult(photo) as { text: string }).text, tag, 'the caption as the message text');
    });

    it('a rich-text tag that spells U+0000 or a lone surrogate is refused, and nothing is sent', async () => {
      const send = (content: string) =>
        botCall(
          t().app,
          'sendMessage',
          bot.api_key,
          { chat_id: groupId, chat_type: 'group', object_name: 'richtext', text: content },
          'json',
        );
      const before = await outboxRows(t());
      for (const [content, detail] of [
        ['q{"uitag":"font","text":"\\u0000"}', 'text must not contain U+0000'],
        ['q{"uitag":"font","text":"\\ud83d"}', 'text must not contain a lone surrogate'],
      ] as const) {
        failed(await send(content), 400, `Bad Request: content: tag 1 (font): ${detail}`, content);
      }
      assert.equal(await outboxRows(t()), before);
      // A plain text whose letters spell such a tag, turned rich by an edit, is new rich content.
      const plain = 'q{"uitag":"font","text":"\\u0000"}';
      const sent = await botCall(
        t().app,
        'sendMessage',
        bot.api_key,
        { chat_id: groupId, chat_type: 'group', text: plain, parse_mode: 'text' },
        'json',
      );
      assert.equal(sent.body.ok, true, JSON.stringify(sent.body));
      const { message_id } = sent.body.result as { message_id: string };
      const turned = await botCall(
        t().app,
        'editMessageText',
        bot.api_key,
        { chat_id: groupId, chat_type: 'group', message_id, text: plain, parse_mode: 'richtext' },
        'json',
      );
      failed(turned, 400, 'Bad Request: content: tag 1 (font): text must not contain U+0000', 'plain turned rich');
    });

    it('HEAD on a method (any spelling) is an unknown route, as PUT is, and sends nothing', async () => {
      const query = new URLSearchParams({ chat_id: groupId, text: 'sent by HEAD?' }).toString();
      const before = await outboxRows(t());
      for (const name of ['sendMessage', 'SENDMESSAGE']) {
        const url = `/telegram/bot${bot.telegram_token}/${name}?${query}`;
        const head = await t().app.inject({ method: 'HEAD', url });
        const put = await t().app.inject({ method: 'PUT', url });
        assert.equal(put.statusCode, 404, put.body);
        assert.deepEqual(put.json(), { ok: false, error_code: 404, description: 'Not Found' });
        // A HEAD answer carries the headers of that answer and no body.
        assert.deepEqual([head.statusCode, head.body], [404, ''], name);
        assert.equal(head.headers['content-type'], put.headers['content-type'], name);
        assert.equal(head.headers['content-length'], put.headers['content-length'], name);
      }
      assert.equal(await outboxRows(t()), before, 'no message was sent');
    });

    it('a refused setWebhook or getUpdates leaves allowed_updates as they were', async () => {
      const allowed = async () =>
        (telegramResult(await telegram('getWebhookInfo', {})) as { allowed_updates?: string[] }).allowed_updates;
      assert.equal(
        telegramResult(await telegram('getUpdates', { allowed_updates: ['message'], timeout: 0 })) instanceof Array,
        true,
      );
      assert.deepEqual(await allowed(), ['message']);
      const refused = await telegram('setWebhook', { url: 'not a url', allowed_updates: ['edited_message'] });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.deepEqual(await allowed(), ['message'], 'a refused setWebhook');
      assert.equal(
        telegramResult(
          await telegram('setWebhook', { url: 'http://127.0.0.1:9/hook', allowed_updates: ['callback_query'] }),
        ),
        true,
      );
      assert.deepEqual(await allowed(), ['callback_query'], 'a setWebhook that succeeds');
      const conflict = await telegram('getUpdates', { allowed_updates: ['message'] });
      assert.equal(conflict.status, 409, JSON.stringify(conflict.body));
      assert.deepEqual(await allowed(), ['callback_query'], 'a getUpdates refused while the webhook is set');
      assert.equal(telegramResult(await telegram('deleteWebhook', {})), true);
    });

    it('setWebhook brings max_connections into 1 to 100 as Telegram does; a non-integer is still refused', async () => {
      for (const max of [0, 101, -5, 100000, '0', '101']) {
        const params = { url: 'http://127.0.0.1:9/hook', max_connections: max };
        assert.equal(telegramResult(await telegram('setWebhook', params)), true, `max_connections ${String(max)}`);
      }
      for (const max of ['abc', 2.5]) {
        telegramError(
          await telegram('setWebhook', { url: 'http://127.0.0.1:9/hook', max_connections: max }),
          400,
          'Bad Request: max_connections: must be integer',
          `max_connections ${String(max)}`,
        );
      }
      assert.equal(telegramResult(await telegram('deleteWebhook', {})), true);
    });

    it('allowed_updates are kept as Telegram reads them: lower case, known kinds once, none known is every kind', async () => {
      const allowed = async () =>
        (telegramResult(await telegram('getWebhookInfo', {})) as { allowed_updates?: string[] }).allowed_updates;
      const given = ['Message', 'CALLBACK_QUERY', 'message', 'bogus'];
      assert.deepEqual(telegramResult(await telegram('getUpdates', { allowed_updates: given, timeout: 0 })), []);
      assert.deepEqual(await allowed(), ['message', 'callback_query']);
      assert.deepEqual(telegramResult(await telegram('getUpdates', { allowed_updates: ['messages'], timeout: 0 })), []);
      assert.equal(await allowed(), undefined);
    });

    it('a held getUpdates keeps its allowed_updates at once, for the poll that ends it', async () => {
      const held = nextWait(t().services.delivery);
      const first = telegram('getUpdates', { allowed_updates: ['message', 'edited_message'], timeout: 30 });
      await held;
      const info = telegramResult(await telegram('getWebhookInfo', {})) as { allowed_updates?: string[] };
      assert.deepEqual(info.allowed_updates, ['message', 'edited_message']);
      assert.deepEqual(telegramResult(await telegram('getUpdates', { timeout: 0 })), []);
      telegramError(
        await first,
        409,
        'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
        'the held poll',
      );
      assert.deepEqual(telegramResult(await telegram('getUpdates', { allowed_updates: [], timeout: 0 })), []);
    });

    it('a keyboard edit of a message stored before the tag check keeps its text as stored', async () => {
      const sent = telegramResult(
        await telegram('sendMessage', {
          chat_id: groupId,
          text: 'x',
          entities: [{ type: 'bold', offset: 0, length: 1 }],
        }),
      ) as {
        message_id: number;
      };
      // As the entity bug stored it: a lone surrogate spelled in a tag.
      const legacy = '{"uitag":"font","text":"\\ud83d","bold":"true"}x';
      await t()
        .services.db.k.updateTable('outbox_messages')
        .set({ content: legacy })
        .where('telegram_message_id', '=', sent.message_id)
        .execute();
      const keyboard = { inline_keyboard: [[{ text: 'k', callback_data: 'k' }]] };
      const edited = await telegram('editMessageReplyMarkup', {
        chat_id: groupId,
        message_id: sent.message_id,
        reply_markup: keyboard,
      });
      assert.deepEqual((telegramResult(edited) as { reply_markup: unknown }).reply_markup, keyboard);
      const retyped = await telegram('editMessageText', {
        chat_id: groupId,
        message_id: sent.message_id,
        text: 'y',
        parse_mode: 'HTML',
      });
      assert.equal((telegramResult(retyped) as { text: string }).text, 'y', 'a new text is taken');
    });
  },
  { env: { WEBHOOK_ALLOW_INSECURE: '1' } },
);
