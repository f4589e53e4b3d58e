// Telegram-format webhooks (telegram-api.md setWebhook, getWebhookInfo) driven by grammY's
// webhookCallback behind a local node:http receiver with a secret token: the body is a Telegram
// Update, X-Telegram-Bot-Api-Secret-Token carries the secret, a reply made by an API call or as the
// webhook's answer lands in the outbox, allowed_updates holds for webhooks too. The dispatcher runs
// one pass per tick().
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, it } from 'node:test';
import { Bot, webhookCallback } from 'grammy';
import type { Update } from 'grammy/types';
import { adminHeaders, describeStores } from './helpers/app.js';
import { botCall, newBot, result, say, startReceiver, type Receiver as HookReceiver } from './helpers/delivery.js';
import { createUsers, type BotCreds, type TestUser } from './helpers/factories.js';
import * as telegram from '../src/modules/telegram/repo.js';

const SECRET = 'tg-secret_0123456789';

interface Receiver {
  url: string;
  headers: IncomingHttpHeaders[];
  updates: Update[];
  server: Server;
}

/** grammY's webhookCallback on 127.0.0.1, recording each request's headers and each Update handled. */
async function receiver(bot: Bot, secretToken: string): Promise<Receiver> {
  const headers: IncomingHttpHeaders[] = [];
  const updates: Update[] = [];
  bot.use(async (ctx, next) => {
    updates.push(ctx.update);
    await next();
  });
  const handle = webhookCallback(bot, 'http', { secretToken });
  const server = createServer((req, res) => {
    headers.push(req.headers);
    void handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, headers, updates, server };
}

await describeStores(
  'Telegram-format webhooks through grammY',
  (t) => {
    let apiRoot = '';
    let alice: TestUser;
    let creds: BotCreds;
    let token = '';
    const servers: Server[] = [];
    after(() => {
      for (const s of servers) s.close();
    });

    const outbox = async (): Promise<string[]> => {
      const r = await t().app.inject({ method: 'GET', url: '/internal/v1/messages?limit=100', headers: adminHeaders });
      assert.equal(r.statusCode, 200, r.body);
      return r.json<{ messages: { content: string }[] }>().messages.map((m) => m.content);
    };
    const echoBot = async (options: { webhookReply: boolean; secret: string }) => {
      const bot = new Bot(token, {
        client: { apiRoot, canUseWebhookReply: () => options.webhookReply },
      });
      const r = await receiver(bot, options.secret);
      servers.push(r.server);
      bot.on('message:text', (ctx) => ctx.reply(`echo: ${ctx.message.text}`));
      return { bot, r };
    };
    const tick = () => t().services.dispatcher.tick();

    it('starts listening and builds a user and a bot', async () => {
      await t().app.listen({ host: '127.0.0.1', port: 0 });
      apiRoot = `http://127.0.0.1:${(t().app.server.address() as AddressInfo).port}/telegram`;
      [alice] = (await createUsers(t().app, 1)) as [TestUser];
      creds = await newBot(t().app, 'webhook bot');
      const n = await telegram.telegramIdOf(t().services.db.k, creds.bot_user_id);
      token = `${String(n)}:${creds.api_key}`;
    });

    it('setWebhook with a secret token: the Update arrives in Telegram form; the reply comes back as the answer', async () => {
      const { bot, r } = await echoBot({ webhookReply: true, secret: SECRET });
      assert.equal(await bot.api.setWebhook(r.url, { secret_token: SECRET, allowed_updates: ['message'] }), true);
      assert.deepEqual(await bot.api.getWebhookInfo(), {
        url: r.url,
        has_custom_certificate: false,
        pending_update_count: 0,
        // Telegram's default when setWebhook gives none.
        max_connections: 40,
        allowed_updates: ['message'],
      });
      await say(t().app, { from: alice.user_id, to: creds.bot_user_id, text: 'over the hook' });
      assert.equal(await tick(), 1, 'one delivery');
      assert.equal(r.headers[0]?.['x-telegram-bot-api-secret-token'], SECRET);
      const aliceId = await telegram.telegramIdOf(t().services.db.k, alice.user_id);
      const m = r.updates[0]?.message;
      assert.ok(m !== undefined, `a message update: ${JSON.stringify(r.updates)}`);
      assert.equal(r.updates[0]?.update_id, 1);
      assert.deepEqual(
        [m.text, m.chat, m.from],
        [
          'over the hook',
          { id: aliceId, type: 'private', first_name: alice.name },
          { id: aliceId, is_bot: false, first_name: alice.name },
        ],
      );
      assert.ok((await outbox()).includes('echo: over the hook'), 'the webhook answer was performed');
      assert.equal((await bot.api.getWebhookInfo()).pending_update_count, 0);
    });

    it('a reply by an API call from the handler lands in the outbox too', async () => {
      const { bot, r } = await echoBot({ webhookReply: false, secret: SECRET });
      await bot.api.setWebhook(r.url, { secret_token: SECRET });
      await say(t().app, { from: alice.user_id, to: creds.bot_user_id, text: 'by api call' });
      assert.equal(await tick(), 1, 'one delivery');
      assert.equal(r.updates[0]?.message?.text, 'by api call');
      assert.ok((await outbox()).includes('echo: by api call'), 'the reply was sent');
    });

    it('a receiver expecting another secret refuses with 401; getWebhookInfo reports it', async () => {
      const { bot, r } = await echoBot({ webhookReply: true, secret: 'another-secret' });
      await bot.api.setWebhook(r.url, { secret_token: SECRET });
      await say(t().app, { from: alice.user_id, to: creds.bot_user_id, text: 'refused' });
      assert.equal(await tick(), 1, 'one delivery');
      assert.deepEqual(r.updates, [], 'not handled');
      const info = await bot.api.getWebhookInfo();
      assert.equal(info.pending_update_count, 1);
      assert.equal(info.last_error_message, 'HTTP 401');
      assert.ok(!(await outbox()).includes('echo: refused'), 'no reply');
      assert.equal(await bot.api.deleteWebhook({ drop_pending_updates: true }), true);
    });

    it('allowed_updates applies to webhook delivery: other kinds are confirmed unsent', async () => {
      const { bot, r } = await echoBot({ webhookReply: true, secret: SECRET });
      await bot.api.setWebhook(r.url, { secret_token: SECRET, allowed_updates: ['callback_query'] });
      await say(t().app, { from: alice.user_id, to: creds.bot_user_id, text: 'not wanted' });
      await tick();
      assert.deepEqual(r.headers, [], 'nothing posted');
      assert.equal((await bot.api.getWebhookInfo()).pending_update_count, 0);
      await bot.api.deleteWebhook();
    });

    it('max_connections is kept as Telegram keeps it (brought into 1 to 100, 40 when not given) and getWebhookInfo reports it; deleteWebhook clears it', async () => {
      const bot = new Bot(token, { client: { apiRoot } });
      const url = 'http://127.0.0.1:9/hook';
      const reported = async () => (await bot.api.getWebhookInfo()).max_connections;
      const stored = async () =>
        (
          await t()
            .services.db.k.selectFrom('bots')
            .select('webhook_max_connections')
            .where('bot_user_id', '=', creds.bot_user_id)
            .executeTakeFirstOrThrow()
        ).webhook_max_connections;
      // Every kind of Update, so that getWebhookInfo lists no allowed_updates below.
      assert.equal(await bot.api.setWebhook(url, { allowed_updates: [] }), true);
      const seen: [number | undefined, number | undefined][] = [];
      for (const given of [7, 0, -3, 101, 100000, 1, 100, undefined]) {
        assert.equal(await bot.api.setWebhook(url, given === undefined ? {} : { max_connections: given }), true);
        seen.push([given, await reported()]);
      }
      assert.deepEqual(seen, [
        [7, 7],
        [0, 1],
        [-3, 1],
        [101, 100],
        [100000, 100],
        [1, 1],
        [100, 100],
        [undefined, 40],
      ]);
      // As a form (text), as other libraries send it.
      const form = await fetch(`${apiRoot}/bot${token}/setWebhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ url, max_connections: '12' }).toString(),
      });
      assert.deepEqual([form.status, await form.json()], [200, { ok: true, result: true }]);
      assert.deepEqual(await bot.api.getWebhookInfo(), {
        url,
        has_custom_certificate: false,
        pending_update_count: 0,
        max_connections: 12,
      });
      // The native getWebhookInfo keeps its 1: its setWebhook takes no maximum, deliveries go one at a time.
      const native = result(await botCall(t().app, 'getWebhookInfo', creds.api_key)) as { max_connections: number };
      assert.equal(native.max_connections, 1, 'native');
      // Cleared with the webhook: none reported, none kept, and a webhook set again without one has 40.
      assert.equal(await bot.api.deleteWebhook(), true);
      assert.deepEqual(await bot.api.getWebhookInfo(), {
        url: '',
        has_custom_certificate: false,
        pending_update_count: 0,
      });
      assert.equal(await stored(), null);
      assert.equal(await bot.api.setWebhook(url, { max_connections: 5 }), true);
      assert.equal(await bot.api.setWebhook('', {}), true, 'an empty url deletes the webhook too');
      assert.equal(await stored(), null);
      assert.equal(await bot.api.setWebhook(url), true);
      assert.equal(await reported(), 40);
      assert.equal(await bot.api.deleteWebhook(), true);
    });

    it('a method call answered as JSON, as a form or as multipart/form-data (aiogram) is performed', async () => {
      const bot = new Bot(token, { client: { apiRoot } });
      const call = (text: string) => ({ method: 'sendMessage', chat_id: alice.user_id, text });
      const form = new FormData();
      for (const [k, v] of Object.entries(call('multipart answer'))) form.append(k, v);
      // Encoded by the platform's own FormData, with its boundary in the Content-Type.
      const multipart = new Response(form);
      const receiver = await startReceiver();
      receiver.script(
        {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(call('json answer')),
        },
        {
          status: 200,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(call('form answer')).toString(),
        },
        {
          status: 200,
          headers: { 'content-type': multipart.headers.get('content-type') ?? '' },
          body: Buffer.from(await multipart.arrayBuffer()),
        },
      );
      try {
        await bot.api.setWebhook(receiver.url, { secret_token: SECRET, allowed_updates: [] });
        for (const text of ['for json', 'for a form', 'for multipart']) {
          await say(t().app, { from: alice.user_id, to: creds.bot_user_id, text });
          assert.equal(await tick(), 1, `one delivery ${text}`);
        }
        assert.equal(receiver.hits.length, 3);
        const sent = await outbox();
        for (const text of ['json answer', 'form answer', 'multipart answer']) {
          assert.ok(sent.includes(text), `${text} was performed: ${JSON.stringify(sent)}`);
        }
      } finally {
        await receiver.close();
      }
      await bot.api.deleteWebhook({ drop_pending_updates: true });
    });

    it('a method call answered as a ~210 KB form (ensure_ascii JSON, as python-telegram-bot writes) is performed', async () => {
      const bot = new Bot(token, { client: { apiRoot } });
      const commands = Array.from({ length: 100 }, (_, i) => ({
        command: `answer_${i}`,
        description: `${i} ${'ответ'.repeat(60)}`.slice(0, 256),
      }));
      const asciiJson = JSON.stringify(commands).replace(
        /[\u0080-\uffff]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
      );
      const body = new URLSearchParams({ method: 'setMyCommands', commands: asciiJson }).toString();
      assert.ok(body.length > 200_000 && body.length < 256 * 1024, `${body.length} bytes`);
      const receiver = await startReceiver();
      receiver.script({ status: 200, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
      try {
        await bot.api.setWebhook(receiver.url, { secret_token: SECRET, allowed_updates: [] });
        await say(t().app, { from: alice.user_id, to: creds.bot_user_id, text: 'for a large answer' });
        assert.equal(await tick(), 1, 'one delivery');
        assert.deepEqual(await bot.api.getMyCommands(), commands);
      } finally {
        await receiver.close();
      }
      await bot.api.deleteWebhook({ drop_pending_updates: true });
    });

    /** What bots sent while `run` ran, in send order (the outbox feed from its cursor before). */
    const sentDuring = async (run: () => Promise<void>): Promise<string[]> => {
      const feed = async (after: string) => {
        const r = await t().app.inject({
          method: 'GET',
          url: `/internal/v1/messages?after=${after}&limit=1000`,
          headers: adminHeaders,
        });
        assert.equal(r.statusCode, 200, r.body);
        return r.json<{ messages: { content: string }[]; next_cursor: string }>();
      };
      const { next_cursor: cursor } = await feed('0');
      await run();
      return (await feed(cursor)).messages.map((m) => m.content);
    };

    /** Sets the webhook to `receiver` and delivers one Update per text, each in its own tick. */
    const deliverEach = async (receiver: HookReceiver, texts: string[]) => {
      const bot = new Bot(token, { client: { apiRoot } });
      await bot.api.setWebhook(receiver.url, { secret_token: SECRET, allowed_updates: [] });
      for (const text of texts) {
        await say(t().app, { from: alice.user_id, to: creds.bot_user_id, text });
        assert.equal(await tick(), 1, `one delivery ${text}`);
      }
      assert.equal(receiver.hits.length, texts.length);
      // Each 200 delivered its Update, whatever came of the answer.
      assert.equal((await bot.api.getWebhookInfo()).pending_update_count, 0);
      await bot.api.deleteWebhook({ drop_pending_updates: true });
    };

    it('an answer cut short or over 256 KiB is not performed (a cut one would say something else); a whole one is', async () => {
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const call = (text: string, pad?: string) =>
        new URLSearchParams({
          method: 'sendMessage',
          chat_id: alice.user_id,
          text,
          ...(pad === undefined ? {} : { pad }),
        }).toString();
      const whole = call('pay 10 coins, do NOT pay 1000');
      const receiver = await startReceiver();
      receiver.script(
        // Up to "pay 10 coins", then the connection drops.
        { status: 200, headers: form, body: whole, cut: whole.indexOf('%2C') },
        // Its method call lies in the first 256 KiB.
        { status: 200, headers: form, body: call('big answer', 'x'.repeat(400 * 1024)) },
        { status: 200, headers: form, body: whole },
      );
      try {
        const sent = await sentDuring(() =>
          deliverEach(receiver, ['for a cut answer', 'for a big answer', 'for a whole answer']),
        );
        assert.deepEqual(sent, ['pay 10 coins, do NOT pay 1000'], 'only the whole answer was performed');
      } finally {
        await receiver.close();
      }
    });

    it('a JSON answer a direct call would refuse (deeper than 32 levels, a __proto__ or constructor.prototype key) is not performed', async () => {
      const json = { 'content-type': 'application/json' };
      const call = (text: string) => JSON.stringify({ method: 'sendMessage', chat_id: alice.user_id, text });
      let deep: unknown = 1;
      for (let i = 0; i < 40; i++) deep = [deep];
      // Written as text: an object literal's __proto__ would set the prototype, not a key.
      const withKey = (text: string, key: string) => `${call(text).slice(0, -1)},${key}}`;
      const receiver = await startReceiver();
      receiver.script(
        {
          status: 200,
          headers: json,
          body: JSON.stringify({ ...(JSON.parse(call('deep answer')) as object), extra: deep }),
        },
        { status: 200, headers: json, body: withKey('proto answer', '"__proto__":{"x":1}') },
        { status: 200, headers: json, body: withKey('constructor answer', '"constructor":{"prototype":{"x":1}}') },
        { status: 200, headers: json, body: call('plain answer') },
      );
      try {
        const sent = await sentDuring(() =>
          deliverEach(receiver, ['for deep', 'for proto', 'for constructor', 'for plain']),
        );
        assert.deepEqual(sent, ['plain answer'], 'only the plain answer was performed');
      } finally {
        await receiver.close();
      }
    });

    it("the Telegram surface's allowed_updates filters neither native-format webhooks nor the native getUpdates", async () => {
      const { bot, r } = await echoBot({ webhookReply: true, secret: SECRET });
      await bot.api.setWebhook(r.url, { secret_token: SECRET, allowed_updates: ['callback_query'] });
      const native = await startReceiver();
      try {
        const hook = await botCall(t().app, 'setWebhook', creds.api_key, { url: native.url, payload_format: 'update' });
        assert.equal((result(hook) as { payload_format: string }).payload_format, 'update');
        await say(t().app, { from: alice.user_id, to: creds.bot_user_id, text: 'native hook' });
        assert.equal(await tick(), 1, 'one delivery');
        assert.deepEqual(
          native.hits.map((h) => (JSON.parse(h.body) as { message_raw?: string }).message_raw),
          ['native hook'],
        );
        assert.deepEqual(r.headers, [], 'nothing went to the Telegram receiver');
      } finally {
        await native.close();
      }
      result(await botCall(t().app, 'deleteWebhook', creds.api_key));
      await say(t().app, { from: alice.user_id, to: creds.bot_user_id, text: 'native poll' });
      const polled = result(await botCall(t().app, 'getUpdates', creds.api_key, { offset: 1 })) as {
        message: { text: string };
      }[];
      assert.deepEqual(
        polled.map((u) => u.message.text),
        ['native poll'],
      );
      // The Telegram surface still reads with the setting it kept.
      assert.deepEqual(await bot.api.getUpdates(), []);
      assert.deepEqual(await bot.api.getWebhookInfo(), {
        url: '',
        has_custom_certificate: false,
        pending_update_count: 0,
        allowed_updates: ['callback_query'],
      });
    });
  },
  { env: { WEBHOOK_ALLOW_INSECURE: '1' } },
);
