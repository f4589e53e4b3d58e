// The playground through app.inject(): sign-in, CSRF, a message through the event path to a bot's
// getUpdates, the bot's reply with its keyboard rendered as buttons, a press reaching the bot as a
// callback query, the long poll (one per session: a newer one ends the older), the language choice
// and PLAYGROUND=off.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeStores, describeStoresOnFakeClock, FakeClock, startTestApp } from './helpers/app.js';
import { botCall, result } from './helpers/delivery.js';
import { applyEvents, createBot, createUsers, sessionToken, type TestUser } from './helpers/factories.js';
import { say } from './helpers/delivery.js';
import { pageClient } from './helpers/pages.js';
import { settlesWithin } from '../src/lib/deadline.js';
import { PlaygroundService } from '../src/modules/playground/service.js';

interface Update {
  update_id: number;
  message?: { text: string; kind: string; from: { user_id: string }; mention_users: { user_id: string }[] };
  callback_query?: { data: string; from: { user_id: string }; message: { message_id: string } };
}

/** Resolves once a live-update request makes its first look (the request is then held open). */
function nextLook(playground: PlaygroundService): Promise<void> {
  const original = playground.conversation.bind(playground);
  return new Promise((resolve) => {
    playground.conversation = (chat, after) => {
      if (after === undefined) return original(chat);
      Reflect.deleteProperty(playground, 'conversation');
      resolve();
      return original(chat, after);
    };
  });
}

await describeStores('playground', (t) => {
  const app = () => t().app;
  const setUp = async () => {
    const [dev] = (await createUsers(app(), 1, { name: 'Mia <Chen>' })) as [TestUser];
    const bot = await createBot(app(), dev.user_id, 'Echo Bot');
    const client = pageClient(app(), `op_session=${await sessionToken(app(), dev.user_id)}`);
    return { dev, bot, client };
  };
  const updates = async (key: string): Promise<Update[]> =>
    result(await botCall(app(), 'getUpdates', key), 'getUpdates') as Update[];

  it('answers 401 without a session, on the page and the long poll', async () => {
    const page = await app().inject({ method: 'GET', url: '/playground/' });
    assert.equal(page.statusCode, 401);
    assert.match(page.body, /<h1>Open the playground in the application<\/h1>/);
    const poll = await app().inject({ method: 'GET', url: '/playground/updates?bot=1&after=0' });
    assert.equal(poll.statusCode, 401);
    assert.deepEqual(poll.json(), { error: 'unauthorized', message: 'not signed in' });
  });

  it('lists the own bots and the assistant; a message reaches the bot and its reply shows with buttons', async () => {
    const { dev, bot, client } = await setUp();
    const home = await client.get('/playground/');
    assert.equal(home.status, 200);
    assert.match(home.body, /<html lang="en">/);
    assert.ok(home.body.includes(`href="/playground/?bot=${bot.bot_user_id}"`), 'own bot listed');
    assert.ok(home.body.includes('Bot Assistant'), 'assistant listed');
    assert.ok(home.body.includes('Mia &lt;Chen&gt;'), 'name escaped');
    const csp = String(home.headers['content-security-policy']);
    assert.match(csp, /script-src 'sha256-[A-Za-z0-9+/=]+'; connect-src 'self'/);

    const chat = await client.get(`/playground/?bot=${bot.bot_user_id}`);
    assert.equal(chat.status, 200);
    assert.match(chat.body, /<form class="composer live" method="post" action="\/playground\/send">/);
    const sent = await client.post('/playground/send', { bot: bot.bot_user_id, text: 'hello <b>bot</b>' });
    assert.equal(sent.status, 303);
    assert.equal(sent.headers.location, `/playground/?bot=${bot.bot_user_id}`);
    const [first] = await updates(bot.api_key);
    assert.equal(first?.message?.text, 'hello <b>bot</b>');
    assert.equal(first.message.from.user_id, dev.user_id);

    const keyboard = {
      inline_keyboard: [
        [{ text: 'Yes <please>', callback_data: 'yes' }],
        [{ text: 'Docs', url: 'https://example.com/d' }, { text: 'Just a label' }],
      ],
    };
    result(
      await botCall(app(), 'sendMessage', bot.api_key, {
        chat_id: dev.user_id,
        text: 'Pick <one>',
        reply_markup: keyboard,
      }),
      'sendMessage',
    );
    const shown = await client.get(`/playground/?bot=${bot.bot_user_id}`);
    assert.ok(shown.body.includes('<p class="text">hello &lt;b&gt;bot&lt;/b&gt;</p>'), 'own message escaped');
    assert.ok(shown.body.includes('<p class="text">Pick &lt;one&gt;</p>'), 'reply escaped');
    assert.match(shown.body, /<button type="submit" class="secondary">Yes &lt;please&gt;<\/button>/);
    assert.match(
      shown.body,
      /<a href="https:\/\/example.com\/d" rel="noopener noreferrer nofollow" target="_blank">Docs/,
    );
    // A button with no action is a label, not a form whose press would name no button.
    assert.ok(shown.body.includes('<span class="key">Just a label</span>'), 'label-only button');
    assert.equal(shown.body.match(/<form class="key live"/g)?.length, 1, 'one press form');
    const messageId = /name="message" value="([^"]+)"/.exec(shown.body)?.[1] ?? assert.fail('button form');

    const stale = await client.post('/playground/press', { bot: bot.bot_user_id, message: messageId, data: 'no' });
    assert.equal(stale.status, 303);
    assert.equal(stale.headers.location, `/playground/?bot=${bot.bot_user_id}&refused=unknown_button`);

    const pressed = await client.post('/playground/press', { bot: bot.bot_user_id, message: messageId, data: 'yes' });
    assert.equal(pressed.status, 303);
    assert.equal(pressed.headers.location, `/playground/?bot=${bot.bot_user_id}&done=pressed`);
    const later = await updates(bot.api_key);
    const callback = later.find((u) => u.callback_query !== undefined)?.callback_query;
    assert.equal(callback?.data, 'yes');
    assert.equal(callback.from.user_id, dev.user_id);
    assert.equal(callback.message.message_id, messageId);
  });

  it('answers the live script in JSON and long-polls for new messages', async () => {
    const { dev, bot, client } = await setUp();
    await client.get(`/playground/?bot=${bot.bot_user_id}`);
    const live = await client.post(
      '/playground/send',
      { bot: bot.bot_user_id, text: 'live one' },
      { headers: { 'x-playground-live': '1' } },
    );
    assert.equal(live.status, 200);
    assert.deepEqual(JSON.parse(live.body), { notice: null });
    const first = await client.get(`/playground/updates?bot=${bot.bot_user_id}&after=0`);
    assert.equal(first.status, 200);
    const body = JSON.parse(first.body) as { cursor: number; items: { id: string; html: string }[] };
    assert.equal(body.items.length, 1);
    assert.ok(body.items[0]?.html.includes('live one'), 'item html');
    const waiting = client.get(`/playground/updates?bot=${bot.bot_user_id}&after=${body.cursor}`);
    result(await botCall(app(), 'sendMessage', bot.api_key, { chat_id: dev.user_id, text: 'pong' }), 'sendMessage');
    const next = JSON.parse((await waiting).body) as { items: { html: string }[] };
    assert.ok(
      next.items.some((i) => i.html.includes('pong')),
      'the reply arrives through the long poll',
    );
  });

  it('a ?refused= shows a real refusal reason in its own words; any other only that it was refused', async () => {
    const { bot, client } = await setUp();
    const status = async (query: string) =>
      /<p id="status" class="fine" role="status">([^<]*)<\/p>/.exec(
        (await client.get(`/playground/?bot=${bot.bot_user_id}&${query}`)).body,
      )?.[1] ?? assert.fail('no status line');
    // A reason the table lacks (a link's made-up text, or one a later event brings) is not shown.
    assert.equal(await status('refused=your_account_is_suspended_call_support'), 'The platform refused it.');
    assert.equal(await status('refused=constructor'), 'The platform refused it.', 'not a key of every object');
    assert.equal(
      await status('refused=unknown_group'),
      'The platform refused the message: it does not know the group (unknown_group).',
    );
    assert.equal(await status('done=pressed'), 'Button pressed: the bot received a callback query.');
  });

  it(
    'holds one live-update request per session: a newer one ends the older, answered at once',
    { timeout: 30_000 },
    async () => {
      const { dev, bot, client } = await setUp();
      const { playground } = t().services;
      const url = `/playground/updates?bot=${bot.bot_user_id}&after=0`;
      const olderHeld = nextLook(playground);
      const older = client.get(url);
      await olderHeld;
      const newerHeld = nextLook(playground);
      const newer = client.get(url);
      const ended = await older;
      assert.equal(ended.status, 200);
      assert.deepEqual(JSON.parse(ended.body), { cursor: 0, items: [], ended: true });
      await newerHeld;
      result(
        await botCall(app(), 'sendMessage', bot.api_key, { chat_id: dev.user_id, text: 'to the newer' }),
        'sendMessage',
      );
      const answered = JSON.parse((await newer).body) as { items: { html: string }[]; ended?: boolean };
      assert.equal(answered.ended, undefined, 'the newer one is not ended');
      assert.ok(
        answered.items.some((i) => i.html.includes('to the newer')),
        'the newer one gets the reply',
      );
    },
  );

  it('answers a long poll with nothing new once its time is up on the injected timer', async () => {
    const { dev, bot } = await setUp();
    const timer = { ms: 0 };
    const playground = new PlaygroundService(t().services.db, t().services.events, new FakeClock(), () => timer.ms);
    const held = nextLook(playground);
    const chat = { type: 'private' as const, userId: dev.user_id, botUserId: bot.bot_user_id };
    let over = false;
    const waiting = playground.waitForChange('a session', chat, 1, () => over);
    await held;
    timer.ms += 20_000;
    const inTime = await settlesWithin(waiting, 3_000);
    over = true;
    assert.equal(inTime, true, 'answered once the timer says its time is up');
    const answered = await waiting;
    assert.equal(answered?.cursor, 1, 'answered, not ended');
    assert.deepEqual(answered.items, []);
  });

  it('refuses a form without its CSRF token, and chats with other bots or groups it is not in', async () => {
    const { bot, client } = await setUp();
    const [other] = (await createUsers(app(), 1)) as [TestUser];
    const foreign = await createBot(app(), other.user_id, 'Not yours');
    await client.get('/playground/');
    const forged = await client.post('/playground/send', { bot: bot.bot_user_id, text: 'x' }, { csrf: 'forged' });
    assert.equal(forged.status, 403);
    assert.match(forged.body, /This form can&#39;t be accepted/);
    assert.deepEqual(await updates(bot.api_key), []);
    assert.equal((await client.get(`/playground/?bot=${foreign.bot_user_id}`)).status, 404);
    await applyEvents(app(), [
      {
        id: `g-${bot.bot_user_id}`,
        type: 'group.upserted',
        data: { group_id: `g${bot.bot_user_id}`, name: 'G', invite_url: `https://x.example/${bot.bot_user_id}` },
      },
    ]);
    assert.equal((await client.get(`/playground/?bot=${bot.bot_user_id}&group=g${bot.bot_user_id}`)).status, 404);
  });

  it('writes in a group both are in, mentioning the bot', async () => {
    const { dev, bot, client } = await setUp();
    const group = `g2${bot.bot_user_id}`;
    await applyEvents(app(), [
      {
        id: `${group}-1`,
        type: 'group.upserted',
        data: { group_id: group, name: 'Testers', invite_url: `https://x.example/${group}` },
      },
      { id: `${group}-2`, type: 'group.member.joined', data: { group_id: group, user_id: dev.user_id } },
      { id: `${group}-3`, type: 'group.member.joined', data: { group_id: group, user_id: bot.bot_user_id } },
    ]);
    const page = await client.get(`/playground/?bot=${bot.bot_user_id}&group=${group}`);
    assert.equal(page.status, 200);
    assert.ok(page.body.includes('Testers · Echo Bot'), 'group chat heading');
    await client.post('/playground/send', { bot: bot.bot_user_id, group, text: 'not for the bot' });
    await client.post('/playground/send', { bot: bot.bot_user_id, group, text: 'hi bot', mention: bot.bot_user_id });
    const got = await updates(bot.api_key);
    assert.deepEqual(
      got.map((u) => [u.message?.text, u.message?.mention_users.map((m) => m.user_id)]),
      [['hi bot', [bot.bot_user_id]]],
    );
  });

  it('speaks Simplified Chinese when Accept-Language asks for it', async () => {
    const { client } = await setUp();
    const zh = await client.get('/playground/', { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' });
    assert.match(zh.body, /<html lang="zh-CN">/);
    assert.ok(zh.body.includes('<h1>调试台</h1>'), 'Chinese heading');
    const en = await client.get('/playground/', { 'accept-language': 'fr, en;q=0.5, zh-TW;q=0.9' });
    assert.match(en.body, /<html lang="en">/);
  });
});

it('PLAYGROUND=off: no playground', async () => {
  const t = await startTestApp('sqlite', { env: { PLAYGROUND: 'off' } });
  try {
    const [u] = (await createUsers(t.app, 1)) as [TestUser];
    const cookie = `op_session=${await sessionToken(t.app, u.user_id)}`;
    const res = await t.app.inject({ method: 'GET', url: '/playground/', headers: { cookie } });
    assert.equal(res.statusCode, 404);
  } finally {
    await t.close();
  }
});

// The live view's cursor is the wall-clock time of the changes it saw, and it looked back 5 s: a
// message written after the clock was set back further, or on an instance further behind, was
// never shown. The poll itself was timed on the wall clock: set back an hour, it was held an hour.
await describeStoresOnFakeClock('playground live view while the wall clock moves', (t, clock) => {
  const setUp = async () => {
    const [user] = (await createUsers(t().app, 1)) as [TestUser];
    const bot = await createBot(t().app, user.user_id, 'Echo Bot');
    const chat = { type: 'private' as const, userId: user.user_id, botUserId: bot.bot_user_id };
    const write = (text: string) => say(t().app, { from: user.user_id, to: bot.bot_user_id, text });
    return { chat, write };
  };
  const texts = (c: { items: { row: object }[] }) => c.items.map((i) => ('text' in i.row ? i.row.text : undefined));

  it('shows a message stamped before the cursor: 50 s behind (an instance behind), or after an hour back', async () => {
    const { chat, write } = await setUp();
    const playground = t().services.playground;
    await write('first');
    const seen = await playground.conversation(chat, 0);
    assert.deepEqual(texts(seen), ['first']);
    clock.advance(-50_000);
    try {
      await write('second');
      const live = await playground.conversation(chat, seen.cursor);
      assert.ok(texts(live).includes('second'), `the live view shows it: ${JSON.stringify(texts(live))}`);
      clock.advance(-3_600_000);
      await write('third');
      assert.ok(texts(await playground.conversation(chat, seen.cursor)).includes('third'), 'an hour back');
    } finally {
      clock.advance(3_650_000);
    }
  });

  it('a long poll answers a message stamped before its cursor at once, not when its time is up', async () => {
    const { chat, write } = await setUp();
    const playground = new PlaygroundService(t().services.db, t().services.events, clock, () => 0);
    await write('first');
    const { cursor } = await playground.conversation(chat, 0);
    const held = nextLook(playground);
    // Told to stop when the test ends: a poll that would hang answers then.
    let over = false;
    const waiting = playground.waitForChange('a session', chat, cursor, () => over);
    await held;
    clock.advance(-10_000);
    try {
      await write('second');
      assert.equal(await settlesWithin(waiting, 3_000), true, 'answered within a look or two');
      const answered = await waiting;
      assert.ok(answered !== undefined && texts(answered).includes('second'), 'with it');
    } finally {
      over = true;
      await waiting;
      clock.advance(10_000);
    }
  });

  // The poll compared each look with its own first look: a message stamped before the cursor and
  // written between one answer and the session's next poll was in that first look, so the next
  // poll held it until its time was up.
  it('the next poll answers at once a message stamped before its cursor written since the last answer', async () => {
    const { chat, write } = await setUp();
    const playground = new PlaygroundService(t().services.db, t().services.events, clock, () => 0);
    await write('first');
    const { cursor } = await playground.conversation(chat, 0);
    let over = false;
    const held = nextLook(playground);
    const firstPoll = playground.waitForChange('a session', chat, cursor, () => over);
    await held;
    clock.advance(1_000);
    await write('second');
    assert.equal(await settlesWithin(firstPoll, 3_000), true, 'the first poll answers the later message');
    const firstAnswer = await firstPoll;
    assert.ok(firstAnswer !== undefined, 'answered, not ended');
    assert.ok(texts(firstAnswer).includes('second'), 'with it');
    // Before the next poll: a message stamped 10 s before the cursor.
    clock.advance(-11_000);
    let nextPoll: Promise<unknown> | undefined;
    try {
      await write('third');
      const waiting = playground.waitForChange('a session', chat, firstAnswer.cursor, () => over);
      nextPoll = waiting;
      assert.equal(await settlesWithin(waiting, 3_000), true, 'answered at once, not when its time is up');
      const answered = await waiting;
      assert.ok(answered !== undefined && texts(answered).includes('third'), 'with it');
    } finally {
      over = true;
      await firstPoll;
      await nextPoll;
      clock.advance(10_000);
    }
  });

  it('a long poll ends after its 20 s on the monotonic timer, however the wall clock moved', async () => {
    const { chat } = await setUp();
    const timer = { ms: 0 };
    const playground = new PlaygroundService(t().services.db, t().services.events, clock, () => timer.ms);
    const held = nextLook(playground);
    let over = false;
    const waiting = playground.waitForChange('a session', chat, 1, () => over);
    await held;
    clock.advance(-3_600_000);
    try {
      timer.ms += 20_000;
      assert.equal(await settlesWithin(waiting, 3_000), true, 'not held for the hour the clock went back');
      assert.equal((await waiting)?.cursor, 1);
    } finally {
      over = true;
      await waiting;
      clock.advance(3_600_000);
    }
  });
});
