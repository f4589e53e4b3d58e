// The bot-creation assistant: a private chat (message.created events to its user id) answered in
// the outbox. Full /newbot, the five-bot limit, key and secret resets, webhook on and off, privacy,
// permission applications with the operator's decision, /deletebot, and a conversation that
// survives a restart.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { App } from '../src/http/types.js';
import type { OutboxMessageView } from '../src/modules/outbox/service.js';
import { adminHeaders, describeStores, startTestApp, storeAcrossInstances } from './helpers/app.js';
import { botCall, failed, result, say } from './helpers/delivery.js';
import { createBot, createUsers, type TestUser } from './helpers/factories.js';
import { storesUnderTest } from './helpers/stores.js';

const ASSISTANT = '1000000000000000000';
const INSECURE = { WEBHOOK_ALLOW_INSECURE: '1' };
const BAD_KEY = 'You X-API-KEY is not available';

/** A user's chat with the assistant: each line sent answers the assistant's one reply. */
function chat(app: () => App, user: TestUser) {
  let cursor = '0';
  const replies = async (): Promise<OutboxMessageView[]> => {
    const res = await app().inject({
      method: 'GET',
      url: `/internal/v1/messages?after=${cursor}&limit=1000`,
      headers: adminHeaders,
    });
    assert.equal(res.statusCode, 200, res.body);
    const page = res.json<{ messages: OutboxMessageView[]; next_cursor: string }>();
    cursor = page.next_cursor;
    return page.messages.filter((m) => m.to_user_id === user.user_id);
  };
  return {
    /** Sends `text` and answers the assistant's reply, which is in the outbox once the event is applied. */
    async send(text: string, kind = 'text'): Promise<string> {
      await replies();
      await say(app(), { from: user.user_id, to: ASSISTANT, text, kind });
      const got = await replies();
      assert.equal(got.length, 1, `one reply to ${JSON.stringify(text)}: ${JSON.stringify(got)}`);
      const [reply] = got;
      assert.ok(reply !== undefined, 'a reply');
      assert.equal(reply.from_user_id, ASSISTANT);
      assert.equal(reply.chat_type, 'private');
      assert.equal(reply.object_name, 'text');
      return reply.content;
    },
  };
}

const field = (reply: string, label: string): string => {
  const m = new RegExp(`^${label}: (\\S+)$`, 'm').exec(reply);
  assert.ok(m?.[1] !== undefined, `"${label}" in ${reply}`);
  return m[1];
};

async function newBotByChat(c: ReturnType<typeof chat>, name: string) {
  await c.send('/newbot');
  await c.send(name);
  const done = await c.send('/skip');
  return {
    reply: done,
    key: field(done, 'App Key'),
    secret: field(done, 'App Secret'),
    id: /bot id is (\d+)/.exec(done)?.[1] ?? '',
  };
}

await describeStores('bot-creation assistant', (t) => {
  const app = () => t().app;
  const newUser = async () => (await createUsers(app(), 1))[0] ?? assert.fail('user');

  it('GET /internal/v1/assistant names its user id; it needs the bearer token', async () => {
    const res = await app().inject({ method: 'GET', url: '/internal/v1/assistant', headers: adminHeaders });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { user_id: ASSISTANT, name: 'Bot Assistant' });
    const anonymous = await app().inject({ method: 'GET', url: '/internal/v1/assistant' });
    assert.equal(anonymous.statusCode, 401);
  });

  it('/help lists the commands; unknown commands and non-text messages are answered', async () => {
    const c = chat(app, await newUser());
    const help = await c.send('/help');
    for (const command of [
      '/newbot',
      '/mybots',
      '/token',
      '/revoke',
      '/resetsecret',
      '/setwebhook',
      '/deletewebhook',
    ]) {
      assert.ok(help.includes(command), `${command} in /help`);
    }
    for (const command of ['/setprivacy', '/apply', '/info', '/deletebot', '/cancel']) {
      assert.ok(help.includes(command), `${command} in /help`);
    }
    assert.match(help, /\/developers\//);
    assert.equal(await c.send('/frobnicate'), "I don't know /frobnicate. Send /help to see what I can do.");
    assert.equal(await c.send('', 'image'), 'I understand text only. Send /help to see what I can do.');
    assert.equal(await c.send('hello'), 'Send /help to see what I can do.');
  });

  it('/newbot walks through name and description and answers working credentials', async () => {
    const c = chat(app, await newUser());
    assert.equal(await c.send('/newbot'), 'Alright, a new bot. How are we going to call it? Send its name.');
    // A name too long is asked again; the conversation stays on the name.
    assert.equal(await c.send('x'.repeat(65)), "That won't do: name: at most 64 characters. Try again, or /cancel.");
    assert.equal(await c.send('  Weather Bot  '), 'Good. Now send a short description of the bot, or /skip.');
    const done = await c.send('Tells the weather.');
    const key = field(done, 'App Key');
    const botId = /bot id is (\d+)\./.exec(done)?.[1];
    assert.ok(botId !== undefined, done);
    assert.match(done, /^Done! Weather Bot is created\./);
    assert.match(done, /^App Secret: \S+$/m);
    assert.match(done, /^EVM address: 0x[0-9a-f]{40}$/m);
    const me = result(await botCall(app(), 'getMe', key)) as Record<string, unknown>;
    assert.equal(me.user_id, botId);
    assert.equal(me.name, 'Weather Bot');
    assert.equal(me.level, 1);
    assert.equal(await c.send('/mybots'), `Your bots:\n1. Weather Bot (bot id ${botId})`);
    const info = await c.send('/info');
    assert.match(info, /^Level: 1$/m);
    assert.equal(field(info, 'EVM address'), field(done, 'EVM address'));
    assert.match(info, /^Receiving: long polling \(getUpdates\)$/m);
    assert.match(info, /^Description: Tells the weather\.$/m);
    // The conversation is over: plain text is not taken as an answer any more.
    assert.equal(await c.send('another'), 'Send /help to see what I can do.');
  });

  it("/newbot and /setname refuse the assistant's own name and hidden characters, and ask again", async () => {
    const c = chat(app, await newUser());
    await c.send('/newbot');
    assert.equal(
      await c.send('bot ASSISTANT'),
      "That won't do: name: must not be the assistant's name. Try again, or /cancel.",
    );
    assert.equal(
      await c.send('Helper\u202Etxt.exe'),
      "That won't do: name: must not contain invisible or direction-changing characters. Try again, or /cancel.",
    );
    assert.equal(await c.send('Helper'), 'Good. Now send a short description of the bot, or /skip.');
    assert.match(await c.send('/skip'), /^Done! Helper is created\./);
    assert.equal(await c.send('/setname'), 'Send the new name.');
    assert.equal(
      await c.send('Bot Assistant'),
      "That won't do: name: must not be the assistant's name. Try again, or /cancel.",
    );
    assert.equal(await c.send('/cancel'), 'Cancelled.');
    assert.match(await c.send('/mybots'), /^1\. Helper \(bot id \d+\)$/m);
  });

  it('the sixth bot is refused, at /newbot and when the limit is reached during the conversation', async () => {
    const owner = await newUser();
    const c = chat(app, owner);
    for (let i = 0; i < 4; i++) await createBot(app(), owner.user_id, `bot ${i}`);
    await c.send('/newbot');
    await c.send('Fifth');
    // Meanwhile the fifth bot is made elsewhere (the developer site): the assistant's own is refused.
    await createBot(app(), owner.user_id, 'made on the site');
    const refusal =
      'You already own 5 bots, the most one account may have. Bots cannot be deleted, so no more can be created.';
    assert.equal(await c.send('/skip'), refusal);
    assert.equal(await c.send('/newbot'), refusal);
    assert.equal(await c.send('Sixth'), 'Send /help to see what I can do.');
    const mine = await c.send('/mybots');
    assert.equal(mine.split('\n').length, 6, mine);
  });

  it("a command's refused argument is asked again for that command, not for the step it left", async () => {
    const owner = await newUser();
    await createBot(app(), owner.user_id, 'Alpha');
    const c = chat(app, owner);
    assert.equal(await c.send('/setname'), 'Send the new name.');
    assert.equal(
      await c.send(`/newbot ${'x'.repeat(70)}`),
      "That won't do: name: at most 64 characters. Try again, or /cancel.",
    );
    // The retry names the new bot; Alpha keeps its name.
    assert.equal(await c.send('Beta'), 'Good. Now send a short description of the bot, or /skip.');
    assert.match(await c.send('/skip'), /^Done! Beta is created\./);
    const mine = await c.send('/mybots');
    assert.match(mine, /^1\. Alpha \(bot id \d+\)$/m);
    assert.match(mine, /^2\. Beta \(bot id \d+\)$/m);
  });

  it('/revoke stops the old App Key at once; /resetsecret answers a new secret', async () => {
    const c = chat(app, await newUser());
    const bot = await newBotByChat(c, 'Keyed');
    result(await botCall(app(), 'getMe', bot.key));
    assert.equal(field(await c.send('/token'), 'App Key of Keyed'), bot.key);
    const revoked = await c.send('/revoke');
    const fresh = field(revoked, 'New App Key of Keyed');
    assert.notEqual(fresh, bot.key);
    assert.match(revoked, /The old key stopped working\./);
    failed(await botCall(app(), 'getMe', bot.key), 400, BAD_KEY, 'old key');
    result(await botCall(app(), 'getMe', fresh), 'new key');
    const secret = field(await c.send('/resetsecret'), 'New App Secret of Keyed');
    assert.notEqual(secret, bot.secret);
    assert.equal(field(await c.send('/token'), 'App Key of Keyed'), fresh, 'a secret reset keeps the key');
  });

  it('/deletebot explains that bots cannot be deleted; the bot stays', async () => {
    const c = chat(app, await newUser());
    const explanation =
      'Bots cannot be deleted: once created, a bot stays. You can still rename it, change its description and settings, reset its keys or clear its webhook.';
    assert.equal(await c.send('/deletebot'), explanation, 'without bots');
    const bot = await newBotByChat(c, 'Stays');
    assert.equal(await c.send('/deletebot'), explanation);
    assert.equal(await c.send('/mybots'), `Your bots:\n1. Stays (bot id ${bot.id})`);
    result(await botCall(app(), 'getMe', bot.key));
  });

  it('with several bots, a command asks which one; a number, id or name picks it', async () => {
    const c = chat(app, await newUser());
    const first = await newBotByChat(c, 'First');
    const second = await newBotByChat(c, 'Second');
    const asked = await c.send('/token');
    assert.equal(
      asked,
      `Your bots:\n1. First (bot id ${first.id})\n2. Second (bot id ${second.id})\n\nWhich one? Send its number.`,
    );
    assert.equal(field(await c.send('2'), 'App Key of Second'), second.key);
    assert.equal(field(await c.send(`/token ${first.id}`), 'App Key of First'), first.key);
    assert.equal(field(await c.send('/token second'), 'App Key of Second'), second.key);
    await c.send('/token');
    assert.match(await c.send('7'), /Send the number of the bot, or \/cancel\.$/);
    assert.equal(await c.send('/cancel'), 'Cancelled.');
  });
});

await describeStores(
  'assistant webhook, privacy and permissions',
  (t) => {
    const app = () => t().app;

    it('/setwebhook switches to webhook mode with a Webhook Key; /deletewebhook back to long polling', async () => {
      const [user] = await createUsers(app(), 1);
      assert.ok(user !== undefined, 'user');
      const c = chat(app, user);
      const bot = await newBotByChat(c, 'Hooked');
      assert.match(await c.send('/setwebhook'), /^Send the https:\/\/ URL/);
      assert.match(await c.send('not a url'), /^That is not a URL\./);
      const set = await c.send('http://127.0.0.1:9/hook flat');
      assert.match(
        set,
        /^Webhook set: updates go to http:\/\/127\.0\.0\.1:9\/hook \(flat format\)\. Long polling is off\.$/m,
      );
      const key = field(set, 'Webhook Key');
      assert.ok(key.length >= 32, key);
      const info = result(await botCall(app(), 'getWebhookInfo', bot.key)) as Record<string, unknown>;
      assert.equal(info.url, 'http://127.0.0.1:9/hook');
      failed(
        await botCall(app(), 'getUpdates', bot.key),
        409,
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      );
      assert.match(await c.send('/info'), /^Receiving: webhook at http:\/\/127\.0\.0\.1:9\/hook \(flat format\)$/m);
      assert.equal(
        await c.send('/deletewebhook'),
        'Webhook cleared. The bot receives updates by long polling (getUpdates) again.',
      );
      assert.deepEqual(result(await botCall(app(), 'getUpdates', bot.key)), []);
    });

    it('/setprivacy asks both settings and the service applies them', async () => {
      const [user] = await createUsers(app(), 1);
      assert.ok(user !== undefined, 'user');
      const c = chat(app, user);
      await newBotByChat(c, 'Private');
      assert.match(await c.send('/setprivacy'), /^Who may send the bot private messages\?/);
      assert.match(await c.send('nobody'), /^That isn't one of the choices\./);
      assert.match(await c.send('friends'), /^Who may invite the bot to groups\?/);
      assert.equal(
        await c.send('2'),
        'Privacy settings saved. Private messages from: friends. Group invites from: people the bot follows.',
      );
      const info = await c.send('/info');
      assert.match(info, /^Private messages from: friends$/m);
      assert.match(info, /^Group invites from: people the bot follows$/m);
    });

    it("/apply files a pending application; the operator's approval shows in /info", async () => {
      const [user] = await createUsers(app(), 1);
      assert.ok(user !== undefined, 'user');
      const c = chat(app, user);
      const bot = await newBotByChat(c, 'Applicant');
      assert.match(await c.send('/apply'), /^Which permission\?/);
      assert.equal(
        await c.send('1'),
        "Application filed: listen to group messages. It is pending the platform's review; /info shows its status.",
      );
      assert.equal(
        await c.send('/apply listen_group_messages'),
        'Sorry, an application for this permission is pending.',
      );
      const pending = await app().inject({
        method: 'GET',
        url: `/internal/v1/permission-applications?status=pending&bot_user_id=${bot.id}`,
        headers: adminHeaders,
      });
      const [application] = pending.json<{ applications: { id: string; permission: string }[] }>().applications;
      assert.equal(application?.permission, 'listen_group_messages');
      assert.match(await c.send('/info'), /^- listen to group messages: pending$/m);
      const approved = await app().inject({
        method: 'POST',
        url: `/internal/v1/permission-applications/${application.id}/approve`,
        headers: adminHeaders,
        payload: { note: 'ok' },
      });
      assert.equal(approved.statusCode, 200, approved.body);
      const info = await c.send('/info');
      assert.match(info, /^Permissions: listen to group messages$/m);
      assert.match(info, /^- listen to group messages: approved \(ok\)$/m);
    });
  },
  { env: INSECURE },
);

await describeStores('assistant without WEBHOOK_ALLOW_INSECURE', (t) => {
  it('an http:// webhook is refused and asked again', async () => {
    const [user] = await createUsers(t().app, 1);
    assert.ok(user !== undefined, 'user');
    const c = chat(() => t().app, user);
    await newBotByChat(c, 'Strict');
    assert.equal(
      await c.send('/setwebhook http://127.0.0.1:9/hook'),
      "That URL can't be used: must start with https:// (set WEBHOOK_ALLOW_INSECURE=1 on the server to allow http:// in development). Try again, or /cancel.",
    );
    // "Try again" means the /setwebhook question: the next message is its answer.
    assert.match(
      await c.send('https://203.0.113.10/hook'),
      /^Webhook set: updates go to https:\/\/203\.0\.113\.10\/hook \(update format\)\. Long polling is off\.$/m,
    );
  });
});

for (const store of await storesUnderTest()) {
  await describe(`assistant conversation across a restart [${store}]`, () => {
    const shared = storeAcrossInstances(store);

    it('a /newbot begun before the restart finishes after it', async () => {
      const first = await startTestApp(store, shared);
      const [user] = await createUsers(first.app, 1);
      assert.ok(user !== undefined, 'user');
      await chat(() => first.app, user).send('/newbot');
      await chat(() => first.app, user).send('Survivor');
      await first.close();
      const second = await startTestApp(store, shared);
      try {
        const done = await chat(() => second.app, user).send('Made across a restart.');
        assert.match(done, /^Done! Survivor is created\./);
        result(await botCall(second.app, 'getMe', field(done, 'App Key')));
      } finally {
        await second.close();
      }
    });
  });
}
