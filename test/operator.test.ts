// operator-api.md beyond events: apps and bots, permission applications, balances, sessions and
// the outbox feed, all behind the operator's bearer token.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ADMIN_TOKEN, adminHeaders, describeStores, FakeClock } from './helpers/app.js';
import {
  applyEvents,
  BOT_CREDS_FIELDS,
  createApp,
  createBot,
  createUsers,
  uid,
  userInfoAnswer,
  type TestUser,
} from './helpers/factories.js';

const clock = new FakeClock();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

await describeStores(
  'operator surface (operator-api.md)',
  (t) => {
    const db = () => t().services.db.k;
    const call = async (method: 'GET' | 'POST', url: string, payload?: unknown): Promise<Answer> => {
      const res = await t().app.inject({
        method,
        url,
        headers: adminHeaders,
        ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
      });
      return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
    };
    /** Expects an operator error: exact status, `error` code, and a text message, nothing else. */
    const fails = (r: Answer, status: number, error: string, what = ''): void => {
      assert.equal(r.status, status, `${what} ${JSON.stringify(r.body)}`);
      assert.deepEqual(Object.keys(r.body).sort(), ['error', 'message'], what);
      assert.equal(r.body.error, error, what);
      assert.equal(typeof r.body.message, 'string', what);
    };
    const users = async (n: number): Promise<TestUser[]> => createUsers(t().app, n);
    const oneUser = async (): Promise<TestUser> => (await users(1))[0] as TestUser;
    const userInfo = async (apiKey: string, userId: string) => {
      const res = await t().app.inject({
        method: 'GET',
        url: `/openapi/user/info?user_id=${userId}`,
        headers: { 'x-api-key': apiKey },
      });
      return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
    };

    // ---------------------------------------------------------------- outbox (first: the store is empty)

    it('GET /internal/v1/messages on an empty outbox answers no messages and cursor "0"', async () => {
      const r = await call('GET', '/internal/v1/messages');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { messages: [], next_cursor: '0' });
    });

    it('the outbox lists messages in send order with the documented shape, paged by cursor', async () => {
      const [owner, a, b] = (await users(3)) as [TestUser, TestUser, TestUser];
      const bot = await createBot(t().app, owner.user_id);
      const groupId = uid('g');
      await applyEvents(t().app, [
        {
          type: 'group.upserted',
          data: { group_id: groupId, name: 'g', invite_url: `https://chat.example/${groupId}` },
        },
      ]);
      const row = {
        app_id: bot.app_id,
        normalized: null,
        reply_markup: null,
        edited_at: null,
        from_user_id: bot.bot_user_id,
      };
      const [m1, m2] = [uid('om'), uid('om')];
      const t1 = clock.now();
      const t2 = t1 + 1500;
      await db()
        .insertInto('outbox_messages')
        .values({
          ...row,
          message_id: m1,
          chat_type: 'group',
          group_id: groupId,
          to_user_id: null,
          object_name: 'richtext',
          title: 'Weekly',
          content: '<p>hello</p>',
          mention_user_ids: JSON.stringify([a.user_id, b.user_id]),
          created_at: t1,
        })
        .execute();
      await db()
        .insertInto('outbox_messages')
        .values({
          ...row,
          message_id: m2,
          chat_type: 'private',
          group_id: null,
          to_user_id: a.user_id,
          object_name: 'RC:TxtMsg',
          title: null,
          content: 'hi there',
          mention_user_ids: '[]',
          created_at: t2,
        })
        .execute();
      const first = {
        id: m1,
        chat_type: 'group',
        group_id: groupId,
        from_user_id: bot.bot_user_id,
        object_name: 'richtext',
        title: 'Weekly',
        content: '<p>hello</p>',
        mention_user_ids: [a.user_id, b.user_id],
        created_at: new Date(t1).toISOString(),
      };
      const second = {
        id: m2,
        chat_type: 'private',
        to_user_id: a.user_id,
        from_user_id: bot.bot_user_id,
        object_name: 'RC:TxtMsg',
        content: 'hi there',
        mention_user_ids: [],
        created_at: new Date(t2).toISOString(),
      };
      const seqs = (
        await db()
          .selectFrom('outbox_messages')
          .select('seq')
          .where('message_id', 'in', [m1, m2])
          .orderBy('seq')
          .execute()
      ).map((r) => String(r.seq));
      const [s1, s2] = seqs as [string, string];

      const all = await call('GET', '/internal/v1/messages');
      assert.equal(all.status, 200);
      assert.deepEqual(all.body, { messages: [first, second], next_cursor: s2 });

      const page1 = await call('GET', '/internal/v1/messages?limit=1');
      assert.deepEqual(page1.body, { messages: [first], next_cursor: s1 });
      const page2 = await call('GET', `/internal/v1/messages?after=${s1}&limit=1`);
      assert.deepEqual(page2.body, { messages: [second], next_cursor: s2 });
      const page3 = await call('GET', `/internal/v1/messages?after=${s2}&limit=1`);
      assert.deepEqual(page3.body, { messages: [], next_cursor: s2 });
      const fromZero = await call('GET', '/internal/v1/messages?after=0&limit=1000');
      assert.deepEqual(fromZero.body, { messages: [first, second], next_cursor: s2 });
    });

    it('the outbox refuses a limit outside 1..1000 or a cursor that is not a number (400 invalid_request)', async () => {
      const queries = ['limit=0', 'limit=1001', 'limit=-1', 'limit=ten', 'limit=1.5', 'after=abc', 'after=-1'];
      // The limit is read as the cursor is: decimal digits, not '1e2', hex, '+5', ' 5' or '5.0'.
      queries.push('limit=1e2', 'limit=0x10', 'limit=%2B5', 'limit=%205', 'limit=5.0');
      for (const query of queries) {
        fails(await call('GET', `/internal/v1/messages?${query}`), 400, 'invalid_request', query);
      }
    });

    // ---------------------------------------------------------------- authentication

    it('every operator endpoint answers 401 unauthorized without the bearer token or with a wrong one', async () => {
      const endpoints: ['GET' | 'POST', string, unknown?][] = [
        ['POST', '/internal/v1/events', { events: [] }],
        ['POST', '/internal/v1/apps', { owner_user_id: 'x', name: 'n', redirect_uris: [] }],
        ['POST', '/internal/v1/bots', { owner_user_id: 'x', name: 'n' }],
        ['GET', '/internal/v1/users/x/balance'],
        ['POST', '/internal/v1/permission-applications', { bot_user_id: 'x', permission: 'publish_bot' }],
        ['GET', '/internal/v1/permission-applications?status=pending'],
        ['POST', '/internal/v1/permission-applications/x/approve'],
        ['POST', '/internal/v1/permission-applications/x/reject'],
        ['POST', '/internal/v1/sessions', { user_id: 'x' }],
        ['GET', '/internal/v1/messages'],
        ['GET', '/internal/v1/messages/edits'],
      ];
      for (const [method, url, payload] of endpoints) {
        for (const headers of [{}, { authorization: 'Bearer not-the-token' }]) {
          const res = await t().app.inject({
            method,
            url,
            headers,
            ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
          });
          fails({ status: res.statusCode, body: res.json() }, 401, 'unauthorized', `${method} ${url}`);
        }
      }
    });

    it('reads the bearer token as every Authorization header: any case, then one or more ASCII spaces', async () => {
      const status = async (authorization: string) =>
        (await t().app.inject({ method: 'GET', url: '/internal/v1/messages?limit=1', headers: { authorization } }))
          .statusCode;
      for (const authorization of [`bearer ${ADMIN_TOKEN}`, `BEARER   ${ADMIN_TOKEN}`, ` Bearer ${ADMIN_TOKEN}\t`])
        assert.equal(await status(authorization), 200, JSON.stringify(authorization));
      // RFC 6750 section 2.1: `Bearer 1*SP b64token`; a tab or Unicode whitespace parts nothing.
      for (const space of ['\u00a0', '\u2003', '\u3000', '\t']) {
        assert.equal(await status(`Bearer${space}${ADMIN_TOKEN}`), 401, JSON.stringify(space));
        assert.equal(await status(`Bearer ${ADMIN_TOKEN}${space}x`), 401, JSON.stringify(space));
      }
      assert.equal(await status(`Bearer ${ADMIN_TOKEN}\u00a0`), 401);
    });

    it('a path under /internal/ that names nothing answers 401 without the bearer, 404 with it', async () => {
      const paths: ['GET' | 'POST' | 'DELETE', string][] = [
        ['GET', '/internal/v1/nope'],
        ['GET', '/internal/v1/events'],
        ['POST', '/internal/v1/messages'],
        ['DELETE', '/internal/v1/sessions'],
        ['GET', '/internal/v2/events?x=1'],
      ];
      for (const [method, url] of paths) {
        for (const headers of [{}, { authorization: 'Bearer not-the-token' }]) {
          const res = await t().app.inject({ method, url, headers });
          fails({ status: res.statusCode, body: res.json() }, 401, 'unauthorized', `${method} ${url}`);
        }
        const known = await t().app.inject({ method, url, headers: adminHeaders });
        assert.equal(known.statusCode, 404, `${method} ${url}`);
        assert.equal(known.json<{ error: string }>().error, 'not_found');
      }
    });

    it('a malformed URL under /internal/ answers 401 without the bearer, 400 with it', async () => {
      for (const url of ['/internal/v1/messages?x=%ZZ', '/internal/v1/messages?after=%C0%80', '/internal/v1/%ZZ']) {
        for (const headers of [{}, { authorization: 'Bearer not-the-token' }]) {
          const res = await t().app.inject({ method: 'GET', url, headers });
          fails({ status: res.statusCode, body: res.json() }, 401, 'unauthorized', url);
        }
        const known = await t().app.inject({ method: 'GET', url, headers: adminHeaders });
        assert.equal(known.statusCode, 400, url);
        assert.equal(known.json<{ error: string }>().error, 'invalid_request', url);
      }
    });

    // ---------------------------------------------------------------- apps

    it('POST /internal/v1/apps creates an application whose key works on /openapi/', async () => {
      const owner = await oneUser();
      const uris = ['https://client.example/cb', 'http://localhost:3000/cb'];
      const r = await call('POST', '/internal/v1/apps', {
        owner_user_id: owner.user_id,
        name: 'My app',
        redirect_uris: uris,
      });
      assert.equal(r.status, 201);
      assert.deepEqual(Object.keys(r.body).sort(), ['api_key', 'app_id', 'app_secret']);
      const { app_id: appId, api_key: apiKey, app_secret: appSecret } = r.body;
      for (const v of [appId, apiKey, appSecret])
        assert.ok(typeof v === 'string' && v.length > 0, "typeof v === 'string' && v.length > 0");
      assert.equal(typeof apiKey, 'string');
      const info = await userInfo(String(apiKey), owner.user_id);
      assert.equal(info.status, 200);
      assert.deepEqual(info.body, userInfoAnswer(owner));
      const app = await db()
        .selectFrom('apps')
        .select(['kind', 'owner_user_id', 'name', 'disabled'])
        .where('app_id', '=', String(appId))
        .executeTakeFirst();
      assert.deepEqual(app, { kind: 'app', owner_user_id: owner.user_id, name: 'My app', disabled: 0 });
      const stored = await db()
        .selectFrom('app_redirect_uris')
        .select('uri')
        .where('app_id', '=', String(appId))
        .orderBy('uri')
        .execute();
      assert.deepEqual(
        stored.map((s) => s.uri),
        [...uris].sort(),
      );
      const other = await createApp(t().app, owner.user_id);
      assert.notEqual(other.app_id, appId);
      assert.notEqual(other.api_key, apiKey);
      assert.notEqual(other.app_secret, appSecret);
    });

    it('POST /internal/v1/apps for an unknown owner is 404 unknown_user and creates nothing', async () => {
      const before = await db().selectFrom('apps').select('app_id').execute();
      fails(
        await call('POST', '/internal/v1/apps', { owner_user_id: 'nobody', name: 'x', redirect_uris: [] }),
        404,
        'unknown_user',
      );
      assert.equal((await db().selectFrom('apps').select('app_id').execute()).length, before.length);
    });

    it('POST /internal/v1/apps with a malformed body is 400 invalid_request', async () => {
      const owner = await oneUser();
      const base = { owner_user_id: owner.user_id, name: 'x', redirect_uris: ['https://a.example/cb'] };
      const cases: [string, unknown][] = [
        ['empty name', { ...base, name: '' }],
        ['missing redirect_uris', { owner_user_id: owner.user_id, name: 'x' }],
        ['redirect_uris not an array', { ...base, redirect_uris: 'https://a.example/cb' }],
        ['not a web address', { ...base, redirect_uris: ['ftp://a.example/cb'] }],
        ['missing owner', { name: 'x', redirect_uris: [] }],
        ['unknown field', { ...base, kind: 'bot' }],
      ];
      for (const [what, payload] of cases)
        fails(await call('POST', '/internal/v1/apps', payload), 400, 'invalid_request', what);
    });

    // ---------------------------------------------------------------- bots

    it('POST /internal/v1/bots creates a bot that is a user of level 1 with its EVM address as wallet', async () => {
      const owner = await oneUser();
      const r = await call('POST', '/internal/v1/bots', { owner_user_id: owner.user_id, name: 'Helper Bot' });
      assert.equal(r.status, 201);
      assert.deepEqual(Object.keys(r.body).sort(), BOT_CREDS_FIELDS);
      const bot = r.body as Record<string, string>;
      assert.match(String(bot.evm_address), /^0x[0-9a-fA-F]{40}$/);
      assert.ok(String(bot.bot_user_id).length > 0, 'String(bot.bot_user_id).length > 0');
      const botId = String(bot.bot_user_id);
      const info = await userInfo(String(bot.api_key), botId);
      assert.equal(info.status, 200);
      assert.deepEqual(
        info.body,
        userInfoAnswer({ name: 'Helper Bot', wallet_address: String(bot.evm_address), avatar: '', user_id: botId }),
      );
      const user = await db()
        .selectFrom('users')
        .select(['name', 'is_bot', 'level', 'wallet_address'])
        .where('user_id', '=', botId)
        .executeTakeFirst();
      assert.deepEqual(user, { name: 'Helper Bot', is_bot: 1, level: 1, wallet_address: bot.evm_address });
      const wallets = await db()
        .selectFrom('wallets')
        .select(['chain_id', 'address'])
        .where('user_id', '=', botId)
        .execute();
      assert.deepEqual(wallets, [{ chain_id: 1, address: bot.evm_address }]);
      const row = await db()
        .selectFrom('bots')
        .select([
          'app_id',
          'owner_user_id',
          'evm_address',
          'private_message_policy',
          'group_invite_policy',
          'webhook_url',
        ])
        .where('bot_user_id', '=', botId)
        .executeTakeFirst();
      assert.deepEqual(row, {
        app_id: bot.app_id,
        owner_user_id: owner.user_id,
        evm_address: bot.evm_address,
        private_message_policy: 'everyone',
        group_invite_policy: 'everyone',
        webhook_url: null,
      });
      const app = await db()
        .selectFrom('apps')
        .select('kind')
        .where('app_id', '=', String(bot.app_id))
        .executeTakeFirst();
      assert.deepEqual(app, { kind: 'bot' });
      assert.deepEqual(
        await db().selectFrom('bot_permissions').select('permission').where('bot_user_id', '=', botId).execute(),
        [],
      );
      // The bot's user counts like any user's.
      const stats = await db()
        .selectFrom('user_stats')
        .select('followers')
        .where('user_id', '=', botId)
        .executeTakeFirst();
      assert.deepEqual(stats, { followers: 0 });
    });

    it('the sixth bot of one owner is refused with 409 bot_limit_reached; other owners are not affected', async () => {
      const [owner, other] = (await users(2)) as [TestUser, TestUser];
      const made = [];
      for (let i = 0; i < 5; i++) made.push(await createBot(t().app, owner.user_id, `bot ${i}`));
      assert.equal(new Set(made.map((b) => b.bot_user_id)).size, 5);
      fails(
        await call('POST', '/internal/v1/bots', { owner_user_id: owner.user_id, name: 'sixth' }),
        409,
        'bot_limit_reached',
      );
      const count = async (id: string) =>
        (await db().selectFrom('bots').select('bot_user_id').where('owner_user_id', '=', id).execute()).length;
      assert.equal(await count(owner.user_id), 5);
      assert.equal((await db().selectFrom('users').select('user_id').where('name', '=', 'sixth').execute()).length, 0);
      assert.equal((await call('POST', '/internal/v1/bots', { owner_user_id: other.user_id, name: 'x' })).status, 201);
    });

    it('concurrent bot creations for one owner never exceed five', async () => {
      const owner = await oneUser();
      const answers = await Promise.all(
        Array.from({ length: 9 }, (_, i) =>
          call('POST', '/internal/v1/bots', { owner_user_id: owner.user_id, name: `racer ${i}` }),
        ),
      );
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, 201, 201, 201, 201, 409, 409, 409, 409]);
      const rows = await db()
        .selectFrom('bots')
        .select('bot_user_id')
        .where('owner_user_id', '=', owner.user_id)
        .execute();
      assert.equal(rows.length, 5);
    });

    it('POST /internal/v1/bots for an unknown owner is 404 unknown_user; a malformed body is 400', async () => {
      fails(await call('POST', '/internal/v1/bots', { owner_user_id: 'nobody', name: 'x' }), 404, 'unknown_user');
      const owner = await oneUser();
      fails(
        await call('POST', '/internal/v1/bots', { owner_user_id: owner.user_id }),
        400,
        'invalid_request',
        'no name',
      );
      fails(
        await call('POST', '/internal/v1/bots', { owner_user_id: owner.user_id, name: '' }),
        400,
        'invalid_request',
        'empty name',
      );
      fails(
        await call('POST', '/internal/v1/bots', { owner_user_id: owner.user_id, name: 'x', level: 3 }),
        400,
        'invalid_request',
        'unknown field',
      );
    });

    // ---------------------------------------------------------------- permission applications

    const PA = '/internal/v1/permission-applications';
    const newBot = async () => (await createBot(t().app, (await oneUser()).user_id)).bot_user_id;
    const file = async (botUserId: string, permission: string) =>
      call('POST', PA, { bot_user_id: botUserId, permission });
    const granted = async (botUserId: string) =>
      (
        await db()
          .selectFrom('bot_permissions')
          .select('permission')
          .where('bot_user_id', '=', botUserId)
          .orderBy('permission')
          .execute()
      ).map((r) => r.permission);
    const listed = async (query: string, botUserId: string) => {
      const r = await call('GET', `${PA}${query}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(Object.keys(r.body), ['applications']);
      return (r.body.applications as Record<string, unknown>[]).filter((a) => a.bot_user_id === botUserId);
    };

    it('concurrent applications for one permission leave one pending', async () => {
      const bot = await newBot();
      const answers = await Promise.all(Array.from({ length: 6 }, () => file(bot, 'publish_bot')));
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409, 409, 409, 409, 409]);
      assert.equal((await listed('?status=pending', bot)).length, 1);
    });

    it('filing an application answers 201 with the pending application; it is listed under ?status=pending', async () => {
      const bot = await newBot();
      const r = await file(bot, 'listen_group_messages');
      assert.equal(r.status, 201);
      assert.equal(typeof r.body.id, 'string');
      const expected = {
        id: r.body.id,
        bot_user_id: bot,
        permission: 'listen_group_messages',
        status: 'pending',
        note: null,
        created_at: new Date(clock.now()).toISOString(),
        decided_at: null,
      };
      assert.deepEqual(r.body, expected);
      assert.deepEqual(await listed('?status=pending', bot), [expected]);
      assert.deepEqual(await listed('', bot), [expected]);
      assert.deepEqual(await listed('?status=approved', bot), []);
      assert.deepEqual(await listed('?status=rejected', bot), []);
      assert.deepEqual(await granted(bot), []);
    });

    it('approving (with a JSON note, or with no body) grants the permission', async () => {
      const bot = await newBot();
      const a1 = await file(bot, 'subscription_account');
      const a2 = await file(bot, 'publish_bot');
      clock.advance(60_000);
      const withNote = await call('POST', `${PA}/${String(a1.body.id)}/approve`, { note: 'looks good' });
      assert.equal(withNote.status, 200, JSON.stringify(withNote.body));
      assert.deepEqual(withNote.body, {
        ...a1.body,
        status: 'approved',
        note: 'looks good',
        decided_at: new Date(clock.now()).toISOString(),
      });
      assert.deepEqual(await granted(bot), ['subscription_account']);
      const bare = await call('POST', `${PA}/${String(a2.body.id)}/approve`);
      assert.equal(bare.status, 200, JSON.stringify(bare.body));
      like(bare.body, { status: 'approved', note: null, permission: 'publish_bot' });
      assert.match(String(bare.body.decided_at), ISO);
      assert.deepEqual(await granted(bot), ['publish_bot', 'subscription_account']);
      assert.deepEqual(await listed('?status=pending', bot), []);
      assert.deepEqual(
        (await listed('?status=approved', bot)).map((a) => String(a.id)).sort(),
        [String(a1.body.id), String(a2.body.id)].sort(),
      );
      const empty = await call(
        'POST',
        `${PA}/${String((await file(bot, 'listen_group_messages')).body.id)}/approve`,
        {},
      );
      assert.equal(empty.status, 200);
      assert.deepEqual(await granted(bot), ['listen_group_messages', 'publish_bot', 'subscription_account']);
    });

    it('rejecting grants nothing; the permission may be applied for again afterwards', async () => {
      const bot = await newBot();
      const a = await file(bot, 'publish_bot');
      const r = await call('POST', `${PA}/${String(a.body.id)}/reject`, { note: 'not yet' });
      assert.equal(r.status, 200);
      like(r.body, { id: a.body.id, status: 'rejected', note: 'not yet', permission: 'publish_bot' });
      assert.deepEqual(await granted(bot), []);
      assert.deepEqual(
        (await listed('?status=rejected', bot)).map((x) => x.id),
        [a.body.id],
      );
      const again = await file(bot, 'publish_bot');
      assert.equal(again.status, 201);
      assert.notEqual(again.body.id, a.body.id);
    });

    it('deciding an application twice is 409 application_decided and changes nothing', async () => {
      const bot = await newBot();
      const approved = String((await file(bot, 'publish_bot')).body.id);
      const rejected = String((await file(bot, 'subscription_account')).body.id);
      assert.equal((await call('POST', `${PA}/${approved}/approve`)).status, 200);
      assert.equal((await call('POST', `${PA}/${rejected}/reject`)).status, 200);
      fails(await call('POST', `${PA}/${approved}/approve`), 409, 'application_decided');
      fails(await call('POST', `${PA}/${approved}/reject`), 409, 'application_decided');
      fails(await call('POST', `${PA}/${rejected}/approve`, { note: 'changed my mind' }), 409, 'application_decided');
      assert.deepEqual(await granted(bot), ['publish_bot']);
      like((await listed('?status=rejected', bot))[0], { id: rejected, note: null });
    });

    it('refuses unknown applications (404), unknown bots (404), a second pending one and a held permission (409)', async () => {
      fails(await call('POST', `${PA}/pa_nope/approve`), 404, 'unknown_application');
      fails(await call('POST', `${PA}/pa_nope/reject`), 404, 'unknown_application');
      fails(await file('no-such-bot', 'publish_bot'), 404, 'unknown_bot');
      const person = await oneUser();
      fails(await file(person.user_id, 'publish_bot'), 404, 'unknown_bot', 'a user who is not a bot');
      const bot = await newBot();
      const first = await file(bot, 'listen_group_messages');
      assert.equal(first.status, 201);
      fails(await file(bot, 'listen_group_messages'), 409, 'application_pending');
      assert.equal((await file(bot, 'publish_bot')).status, 201, 'another permission may be pending at once');
      assert.equal((await call('POST', `${PA}/${String(first.body.id)}/approve`)).status, 200);
      fails(await file(bot, 'listen_group_messages'), 409, 'permission_held');
      assert.equal((await listed('?status=pending', bot)).length, 1);
    });

    it('an unknown permission name, status filter or decision field is 400 invalid_request', async () => {
      const bot = await newBot();
      fails(await file(bot, 'send_everything'), 400, 'invalid_request', 'permission');
      fails(await call('POST', PA, { bot_user_id: bot }), 400, 'invalid_request', 'missing permission');
      fails(await call('GET', `${PA}?status=maybe`), 400, 'invalid_request', 'status');
      const a = String((await file(bot, 'publish_bot')).body.id);
      fails(await call('POST', `${PA}/${a}/approve`, { reason: 'x' }), 400, 'invalid_request', 'unknown field');
      fails(await call('POST', `${PA}/${a}/approve`, { note: 5 }), 400, 'invalid_request', 'note not text');
      assert.equal((await listed('?status=pending', bot)).length, 1);
    });

    // ---------------------------------------------------------------- balances

    it('GET /internal/v1/users/{id}/balance: "0" for a new user, exact decimals after credits, 404 for strangers', async () => {
      const u = await oneUser();
      const url = `/internal/v1/users/${u.user_id}/balance`;
      assert.deepEqual(await call('GET', url), { status: 200, body: { user_id: u.user_id, balance: '0' } });
      await applyEvents(t().app, [
        { type: 'points.credited', data: { user_id: u.user_id, amount: '12.3' } },
        { type: 'points.credited', data: { user_id: u.user_id, amount: 0.04 } },
      ]);
      assert.deepEqual(await call('GET', url), { status: 200, body: { user_id: u.user_id, balance: '12.34' } });
      await applyEvents(t().app, [{ type: 'points.credited', data: { user_id: u.user_id, amount: '87.66' } }]);
      assert.deepEqual(await call('GET', url), { status: 200, body: { user_id: u.user_id, balance: '100' } });
      fails(await call('GET', '/internal/v1/users/nobody/balance'), 404, 'unknown_user');
    });

    // ---------------------------------------------------------------- sessions

    it('POST /internal/v1/sessions answers a cookie "op_session=..." and an ISO expiry; the cookie signs the user in', async () => {
      const u = await oneUser();
      const r = await call('POST', '/internal/v1/sessions', { user_id: u.user_id });
      assert.equal(r.status, 200);
      assert.deepEqual(Object.keys(r.body).sort(), ['cookie', 'expires_at']);
      const cookie = String(r.body.cookie);
      assert.match(cookie, /^op_session=[A-Za-z0-9_-]{20,}$/);
      assert.match(String(r.body.expires_at), ISO);
      assert.ok(
        Date.parse(String(r.body.expires_at)) > clock.now(),
        'Date.parse(String(r.body.expires_at)) > clock.now()',
      );
      const value = cookie.slice('op_session='.length);
      assert.equal(await t().services.sessions.userOf(value), u.user_id);
      assert.equal(await t().services.sessions.userOf(`${value}x`), undefined);
      const again = await call('POST', '/internal/v1/sessions', { user_id: u.user_id });
      assert.notEqual(again.body.cookie, cookie);
      const stored = JSON.stringify(
        await db().selectFrom('sessions').selectAll().where('user_id', '=', u.user_id).execute(),
      );
      assert.ok(!stored.includes(value), 'session token stored in clear');
    });

    it('POST /internal/v1/sessions for an unknown user is 404 unknown_user; a malformed body is 400', async () => {
      fails(await call('POST', '/internal/v1/sessions', { user_id: 'nobody' }), 404, 'unknown_user');
      fails(await call('POST', '/internal/v1/sessions', {}), 400, 'invalid_request', 'missing user_id');
      fails(await call('POST', '/internal/v1/sessions', { user_id: 5 }), 400, 'invalid_request', 'numeric user_id');
    });
  },
  { clock },
);

function like(row: unknown, expected: Record<string, unknown>): void {
  const r = (row ?? {}) as Record<string, unknown>;
  assert.deepEqual(Object.fromEntries(Object.keys(expected).map((k) => [k, r[k]])), expected);
}
