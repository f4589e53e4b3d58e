// What Telegraf 4.16 sends, written out as it marshals it (Telegraf is not a dependency): every
// inline button built with Markup.button.* carries `hide: false`, a field Telegram ignores, as it
// ignores newer button fields and extra keyboard-level fields; and the deprecated method name
// getChatMembersCount, which Telegraf and older libraries still call. Both stores.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeStores } from './helpers/app.js';
import { type Answer, botCall } from './helpers/delivery.js';
import { createGroupChat, type GroupChat } from './helpers/factories.js';

await describeStores('what Telegraf sends', (t) => {
  let bot: GroupChat['bot'];
  let groupId: string;
  before(async () => {
    ({ bot, groupId } = await createGroupChat(t().app));
  });
  // Telegraf posts every method as a JSON body.
  const telegram = (method: string, params: Record<string, unknown>) =>
    botCall(t().app, method, bot.api_key, params, 'json', `/telegram/bot${bot.telegram_token}/${method}`);
  const resultOf = (r: Answer, what: string): unknown => {
    assert.equal(r.status, 200, `${what} ${JSON.stringify(r.body)}`);
    assert.deepEqual(Object.keys(r.body), ['ok', 'result'], what);
    return r.body.result;
  };
  const markupOf = (r: Answer, what: string): unknown => (resultOf(r, what) as { reply_markup?: unknown }).reply_markup;

  // Markup.button.callback(text, data) and Markup.button.url(text, url), as Telegraf builds them.
  const callback = (text: string, data: string) => ({ text, callback_data: data, hide: false });
  const url = (text: string, link: string) => ({ text, url: link, hide: false });

  it('inline keyboards with hide:false on every button are taken by sendMessage and both edits', async () => {
    const first = {
      inline_keyboard: [[callback('Yes', 'yes'), callback('No', 'no')], [url('Site', 'https://site.example/a')]],
    };
    const sent = await telegram('sendMessage', { chat_id: groupId, text: 'q', reply_markup: first });
    assert.deepEqual(markupOf(sent, 'sendMessage'), {
      inline_keyboard: [
        [
          { text: 'Yes', callback_data: 'yes' },
          { text: 'No', callback_data: 'no' },
        ],
        [{ text: 'Site', url: 'https://site.example/a' }],
      ],
    });
    const { message_id } = resultOf(sent, 'sendMessage') as { message_id: number };

    const second = { inline_keyboard: [[url('Docs', 'https://docs.example'), callback('Again', 'again')]] };
    const text = await telegram('editMessageText', { chat_id: groupId, message_id, text: 'q2', reply_markup: second });
    assert.deepEqual(markupOf(text, 'editMessageText'), {
      inline_keyboard: [
        [
          { text: 'Docs', url: 'https://docs.example' },
          { text: 'Again', callback_data: 'again' },
        ],
      ],
    });

    const third = { inline_keyboard: [[callback('Done', 'done')], [url('Help', 'https://help.example')]] };
    const markup = await telegram('editMessageReplyMarkup', { chat_id: groupId, message_id, reply_markup: third });
    assert.deepEqual(markupOf(markup, 'editMessageReplyMarkup'), {
      inline_keyboard: [[{ text: 'Done', callback_data: 'done' }], [{ text: 'Help', url: 'https://help.example' }]],
    });
  });

  it('newer button fields and extra keyboard-level fields are ignored, as Telegram ignores them', async () => {
    const reply_markup = {
      inline_keyboard: [
        [
          { ...callback('Go', 'go'), style: 'primary', icon_custom_emoji_id: '5368324170671202286' },
          { ...url('Site', 'https://site.example'), style: 'danger' },
        ],
      ],
      // What Telegraf's Markup#resize() and #selective() add to any markup.
      resize_keyboard: true,
      selective: false,
    };
    const sent = await telegram('sendMessage', { chat_id: groupId, text: 'styled', reply_markup });
    assert.deepEqual(markupOf(sent, 'sendMessage'), {
      inline_keyboard: [
        [
          { text: 'Go', callback_data: 'go' },
          { text: 'Site', url: 'https://site.example' },
        ],
      ],
    });
  });

  it("the refusals still apply to Telegraf's buttons: a button needs text, callback_data fits 64 bytes", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ callback_data: 'x', hide: false }, 'reply_markup: expected {"inline_keyboard": [[{"text": ...}]]}'],
      [callback('k', 'é'.repeat(33)), 'BUTTON_DATA_INVALID'],
      [url('k', 'http://site.example'), 'reply_markup: button links must start with https://'],
    ];
    for (const [button, description] of cases) {
      const r = await telegram('sendMessage', {
        chat_id: groupId,
        text: 'x',
        reply_markup: { inline_keyboard: [[button]] },
      });
      assert.deepEqual(
        { status: r.status, body: r.body },
        { status: 400, body: { ok: false, error_code: 400, description: `Bad Request: ${description}` } },
        JSON.stringify(button),
      );
    }
  });

  it('getChatMembersCount, the deprecated name, answers as getChatMemberCount, in any case', async () => {
    const count = resultOf(await telegram('getChatMemberCount', { chat_id: groupId }), 'getChatMemberCount');
    assert.equal(count, 3);
    for (const name of ['getChatMembersCount', 'getchatmemberscount', 'GETCHATMEMBERSCOUNT']) {
      assert.equal(resultOf(await telegram(name, { chat_id: groupId }), name), 3);
    }
    const r = await telegram('getChatMembersCount', { chat_id: 'no-such-chat' });
    assert.deepEqual(
      { status: r.status, body: r.body },
      { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } },
    );
  });
});
