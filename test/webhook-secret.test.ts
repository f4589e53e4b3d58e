// decisions.md section 7, "Standard Webhooks libraries": setWebhook, getWebhookInfo, the developer
// site and the assistant hand out `webhook_secret`, and the `standardwebhooks` npm package verifies
// a real delivery with it as it is; a tampered body, or another bot's secret, fails.
// The FakeClock starts at the real time: the library refuses timestamps more than 5 minutes off.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { adminHeaders, describeStores, FakeClock } from './helpers/app.js';
import { botCall, newBot, result, say, startReceiver, type Hit, type Receiver } from './helpers/delivery.js';
import { createBot, createUsers, sessionToken, type TestUser } from './helpers/factories.js';

const ASSISTANT = '1000000000000000000';
const NO_WEBHOOK = '';

/** What a Standard Webhooks library is given: `whsec_` + base64 of the key's UTF-8 bytes. */
const expectedSecret = (key: string): string => `whsec_${Buffer.from(key, 'utf8').toString('base64')}`;

/** The three signature headers of a delivery, as a receiver hands them to the library. */
function signatureHeaders(hit: Hit): Record<string, string> {
  const pick = (name: string): string => {
    const value = hit.headers[name];
    assert.equal(typeof value, 'string', `${name} header`);
    return String(value);
  };
  return {
    'webhook-id': pick('webhook-id'),
    'webhook-timestamp': pick('webhook-timestamp'),
    'webhook-signature': pick('webhook-signature'),
  };
}

/** Verifies the delivery with the library; tampering with the body makes it fail. */
function verifiesWith(secret: string, hit: Hit): void {
  const headers = signatureHeaders(hit);
  const verified = new Webhook(secret).verify(hit.body, headers);
  assert.deepEqual(verified, JSON.parse(hit.body), 'the library returns the verified body');
  const tampered = hit.body.replace('"message_raw":"', '"message_raw":"X');
  assert.notEqual(tampered, hit.body, 'the body was changed');
  assert.throws(() => new Webhook(secret).verify(tampered, headers), { name: 'WebhookVerificationError' });
}

interface Info {
  url: string;
  webhook_secret: string;
}

await describeStores(
  'webhook_secret verifies deliveries with a Standard Webhooks library',
  (t) => {
    let alice: TestUser;
    let receiver: Receiver;
    const info = async (apiKey: string) => result(await botCall(t().app, 'getWebhookInfo', apiKey)) as Info;
    /** A user's private message to the bot, delivered to the receiver by one dispatcher pass. */
    const deliver = async (botUserId: string, text: string): Promise<Hit> => {
      const before = receiver.hits.length;
      await say(t().app, { from: alice.user_id, to: botUserId, text });
      assert.equal(await t().services.dispatcher.tick(), 1, 'one delivery');
      const hit = (await receiver.received(before + 1))[before];
      assert.ok(hit !== undefined, 'the delivery arrived');
      assert.equal((JSON.parse(hit.body) as { message_raw: string }).message_raw, text, 'the delivery of this message');
      return hit;
    };
    /** Back to long polling with nothing queued, so the next test's tick sees only its own delivery. */
    const retire = async (apiKey: string) => {
      assert.equal(result(await botCall(t().app, 'deleteWebhook', apiKey, { drop_pending_updates: true })), true);
      assert.equal((await info(apiKey)).webhook_secret, NO_WEBHOOK, 'no secret without a webhook');
    };

    it('starts a receiver and a user', async () => {
      receiver = await startReceiver();
      [alice] = (await createUsers(t().app, 1)) as [TestUser];
    });

    it('setWebhook with secret_token: its result and getWebhookInfo give the secret; a delivery verifies', async () => {
      const bot = await newBot(t().app, 'named key bot');
      assert.equal((await info(bot.api_key)).webhook_secret, NO_WEBHOOK, 'empty before a webhook is set');
      const key = 'standard_webhooks_key_0123456789';
      const set = result(await botCall(t().app, 'setWebhook', bot.api_key, { url: receiver.url, secret_token: key }));
      assert.deepEqual(set, {
        url: receiver.url,
        webhook_key: key,
        webhook_secret: 'whsec_c3RhbmRhcmRfd2ViaG9va3Nfa2V5XzAxMjM0NTY3ODk=',
        payload_format: 'update',
      });
      assert.equal(expectedSecret(key), 'whsec_c3RhbmRhcmRfd2ViaG9va3Nfa2V5XzAxMjM0NTY3ODk=');
      assert.deepEqual(await info(bot.api_key), {
        url: receiver.url,
        pending_update_count: 0,
        last_error_date: 0,
        last_error_message: '',
        max_connections: 1,
        webhook_secret: expectedSecret(key),
      });
      const hit = await deliver(bot.bot_user_id, 'named key');
      assert.equal(hit.headers['x-api-key'], key);
      verifiesWith(expectedSecret(key), hit);
      await retire(bot.api_key);
    });

    it('a generated Webhook Key has its secret too; another bot secret does not verify', async () => {
      const bot = await newBot(t().app, 'generated key bot');
      const other = await newBot(t().app, 'other bot');
      const set = result(await botCall(t().app, 'setWebhook', bot.api_key, { url: receiver.url })) as {
        webhook_key: string;
        webhook_secret: string;
      };
      assert.equal(set.webhook_secret, expectedSecret(set.webhook_key));
      assert.equal((await info(bot.api_key)).webhook_secret, set.webhook_secret);
      const otherSet = result(await botCall(t().app, 'setWebhook', other.api_key, { url: receiver.url })) as {
        webhook_secret: string;
      };
      await retire(other.api_key);
      const hit = await deliver(bot.bot_user_id, 'generated key');
      verifiesWith(set.webhook_secret, hit);
      assert.throws(() => new Webhook(otherSet.webhook_secret).verify(hit.body, signatureHeaders(hit)), {
        name: 'WebhookVerificationError',
      });
      await retire(bot.api_key);
    });

    it('the developer site shows the secret beside the Webhook Key', async () => {
      const owner = (await createUsers(t().app, 1))[0] ?? assert.fail('owner');
      const bot = await createBot(t().app, owner.user_id, 'site bot');
      const session = `op_session=${await sessionToken(t().app, owner.user_id)}`;
      const path = `/developers/bots/${bot.bot_user_id}`;
      const page = await t().app.inject({ method: 'GET', url: path, headers: { cookie: session } });
      assert.equal(page.statusCode, 200);
      const csrfCookie = String(page.headers['set-cookie']).split(';')[0] ?? '';
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? assert.fail('a CSRF token on the page');
      const set = await t().app.inject({
        method: 'POST',
        url: `${path}/webhook`,
        headers: { cookie: `${session}; ${csrfCookie}`, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ csrf, url: receiver.url }).toString(),
      });
      assert.equal(set.statusCode, 200, set.body);
      const shown = (label: string): string =>
        new RegExp(`<h3>${label}</h3>\\s*<code class="secret">([^<]+)</code>`).exec(set.body)?.[1] ??
        assert.fail(`${label} on the page`);
      const secret = shown('Webhook secret');
      assert.equal(secret, expectedSecret(shown('Webhook Key')));
      assert.equal((await info(bot.api_key)).webhook_secret, secret);
      verifiesWith(secret, await deliver(bot.bot_user_id, 'from the site'));
      await retire(bot.api_key);
    });

    it("the assistant's /setwebhook reply gives the secret after the Webhook Key", async () => {
      const owner = (await createUsers(t().app, 1))[0] ?? assert.fail('owner');
      let cursor = '0';
      /** Sends the assistant a line and answers its reply (in the outbox once the event is applied). */
      const send = async (text: string): Promise<string> => {
        await say(t().app, { from: owner.user_id, to: ASSISTANT, text });
        const res = await t().app.inject({
          method: 'GET',
          url: `/internal/v1/messages?after=${cursor}&limit=1000`,
          headers: adminHeaders,
        });
        assert.equal(res.statusCode, 200, res.body);
        const page = res.json<{ messages: { to_user_id?: string; content: string }[]; next_cursor: string }>();
        cursor = page.next_cursor;
        const replies = page.messages.filter((m) => m.to_user_id === owner.user_id);
        assert.equal(replies.length, 1, `one reply to ${text}`);
        return replies[0]?.content ?? '';
      };
      const field = (reply: string, label: string): string =>
        new RegExp(`^${label}: (\\S+)$`, 'm').exec(reply)?.[1] ?? assert.fail(`"${label}" in ${reply}`);
      await send('/newbot');
      await send('Assisted');
      const created = await send('/skip');
      const apiKey = field(created, 'App Key');
      const botUserId = /bot id is (\d+)/.exec(created)?.[1] ?? assert.fail(`a bot id in ${created}`);
      await send('/setwebhook');
      const set = await send(receiver.url);
      const secret = field(set, 'Webhook secret');
      assert.equal(secret, expectedSecret(field(set, 'Webhook Key')));
      assert.equal((await info(apiKey)).webhook_secret, secret);
      verifiesWith(secret, await deliver(botUserId, 'from the assistant'));
      await retire(apiKey);
    });

    it('closes the receiver', async () => {
      await receiver.close();
    });
  },
  () => ({ clock: new FakeClock(Date.now()), env: { WEBHOOK_ALLOW_INSECURE: '1' } }),
);
