// What SDKs of the platform's own bot methods put in a form (decisions.md sections 2 and 7): a
// Python boolean as "True", unset optional fields as empty text or JSON's null (`content` then
// stands in for a null `text`). Both stores.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { adminHeaders, describeStores } from './helpers/app.js';
import { botCall, failed, result, say } from './helpers/delivery.js';
import {
  applyEvents,
  applyForPermission,
  approveApplication,
  createBot,
  createUsers,
  type BotCreds,
  type TestUser,
} from './helpers/factories.js';

await describeStores(
  'bot methods as SDKs fill their forms',
  (t) => {
    let user: TestUser;
    let bot: BotCreds;
    before(async () => {
      [user] = (await createUsers(t().app, 1)) as [TestUser];
      bot = await createBot(t().app, user.user_id);
    });
    const call = (method: string, params: Record<string, unknown>, as: 'form' | 'json' = 'form') =>
      botCall(t().app, method, bot.api_key, params, as);
    const pending = async () =>
      (result(await call('getWebhookInfo', {})) as { pending_update_count: number }).pending_update_count;

    it('a boolean may be True or False in any case, or 1 or 0; other text is still refused', async () => {
      for (const [given, dropped] of [
        ['False', false],
        ['0', false],
        ['FALSE', false],
        ['True', true],
        ['1', true],
        ['TRUE', true],
      ] as const) {
        await say(t().app, { from: user.user_id, to: bot.bot_user_id, text: `drop ${given}` });
        const before = await pending();
        assert.ok(before > 0, 'an Update waits');
        assert.equal(result(await call('deleteWebhook', { drop_pending_updates: given }), given), true);
        assert.equal(await pending(), dropped ? 0 : before, `drop_pending_updates=${given}`);
      }
      failed(
        await call('deleteWebhook', { drop_pending_updates: 'maybe' }),
        400,
        'Bad Request: drop_pending_updates: must be boolean',
      );
    });

    it('an optional field given as null, or as empty text where it may be empty, is one not given', async () => {
      await say(t().app, { from: user.user_id, to: bot.bot_user_id, text: 'hello' });
      const sent = (r: Awaited<ReturnType<typeof call>>, what: string) => {
        assert.equal((result(r, what) as { text: string }).text, 'hi', what);
      };
      const base = { chat_id: user.user_id, content: 'hi' };
      sent(await call('sendMessage', { ...base, chat_type: '', parse_mode: '', mention_type: '' }), 'form');
      sent(await call('sendMessage', { ...base, text: null, chat_type: null, parse_mode: null }, 'json'), 'json');
      const updates = result(await call('getUpdates', { offset: '', limit: '', timeout: '' }), 'getUpdates');
      assert.ok(Array.isArray(updates), 'an array of Updates');
    });

    it('an empty text or secret_token is one not given too: content stands in, a Webhook Key is generated', async () => {
      const message = (r: Awaited<ReturnType<typeof call>>, what: string) =>
        result(r, what) as { message_id: string; text: string };
      const sent = message(await call('sendMessage', { chat_id: user.user_id, text: '', content: 'hello' }), 'send');
      assert.equal(sent.text, 'hello');
      const edit = { chat_id: user.user_id, message_id: sent.message_id, text: '', content: 'edited' };
      assert.equal(message(await call('editMessageText', edit), 'edit').text, 'edited');
      // Both empty: refused as a call without text is.
      for (const params of [{ text: '' }, { text: '', content: '' }]) {
        failed(await call('sendMessage', { chat_id: user.user_id, ...params }), 400, 'Bad Request: text: required');
      }
      const follower = (await createUsers(t().app, 1)) as [TestUser];
      await applyEvents(t().app, [
        { type: 'follow.created', data: { follower_id: follower[0].user_id, followed_id: bot.bot_user_id } },
      ]);
      await approveApplication(
        t().app,
        (await applyForPermission(t().app, bot.bot_user_id, 'subscription_account')).id,
      );
      assert.deepEqual(result(await call('sendMessageToFans', { text: '', content: 'news' }), 'fans'), { sent: 1 });
      const outbox = await t().app.inject({
        method: 'GET',
        url: '/internal/v1/messages?limit=1000',
        headers: adminHeaders,
      });
      const last = outbox.json<{ messages: { to_user_id?: string; content: string }[] }>().messages.at(-1);
      assert.deepEqual([last?.to_user_id, last?.content], [follower[0].user_id, 'news']);

      const set = result(await call('setWebhook', { url: 'https://127.0.0.1/hook', secret_token: '' }), 'setWebhook');
      assert.match((set as { webhook_key: string }).webhook_key, /^[A-Za-z0-9_-]{16,256}$/);
      assert.equal(result(await call('deleteWebhook', {}), 'deleteWebhook'), true);
    });
  },
  // The Webhook URL above is a loopback address.
  { env: { WEBHOOK_ALLOW_INSECURE: '1' } },
);
