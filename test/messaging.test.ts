// The /openapi/ send endpoints (seed-api.md "Messaging", "Message content markup", "Limits";
// decisions.md section 3): both generations and the older paths, every refusal with its exact
// error and nothing stored, the image level, privacy, Idempotency-Key and the rate limits.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, mock } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDb, type Db } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';
import type { App } from '../src/http/types.js';
import { sha256Hex } from '../src/lib/crypto.js';
import { MemoryRateLimiter } from '../src/lib/rate-limit.js';
import { openSharedState, type SharedState } from '../src/lib/shared-state.js';
import { createServices } from '../src/services.js';
import { ADMIN_TOKEN, describeStoresOnFakeClock, dropSchema, FakeClock } from './helpers/app.js';
import { PG_URL, REDIS_URL, redisTestPrefix, redisUnderTest, storesUnderTest } from './helpers/stores.js';
import { botCall, result } from './helpers/delivery.js';
import {
  applyEvents,
  applyForPermission,
  approveApplication,
  createApp,
  createBot,
  createUsers,
  postEvents,
  signedHeaders,
  uid,
  type BotCreds,
  type Creds,
  type TestUser,
} from './helpers/factories.js';
import {
  ACCEPTED,
  GROUP_SEND,
  IMAGE_LEVEL,
  IMG,
  OLD_GROUP_SEND,
  OLD_PRIVATE_SEND,
  outboxSince,
  paramError,
  PRIVATE_SEND,
  UNKNOWN_GROUP,
  watchOutbox,
} from './helpers/outbox.js';
import { link, tag } from './helpers/richtext.js';
import type { OutboxMessageView } from '../src/modules/outbox/service.js';

const TOO_MANY = { error: 'Too Many Requests', code: 429, message: 'rate limit exceeded' };
const NOT_MEMBER = { error: 'Forbidden', code: 403, message: 'the sender is not a member of this group' };
const PRIVATE_REFUSED = {
  error: 'Forbidden',
  code: 403,
  message: "the bot's private-message setting does not allow this user",
};
const TOO_LARGE = { error: 'Payload Too Large', code: 413, message: 'request body too large' };

const RICH = `Hello ${link('docs', 'https://docs.example/x')} and ${tag({
  uitag: 'font',
  text: 'red',
  bold: 'true',
  color: '#f00',
})}.`;

type OutboxMessage = OutboxMessageView;

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, unknown>;
}

/** Drops the generated id (checked to be a distinct string) so rows compare by content. */
function withoutIds(messages: OutboxMessage[]): Omit<OutboxMessage, 'id'>[] {
  const ids = new Set(messages.map((m) => m.id));
  assert.equal(ids.size, messages.length, 'outbox ids are distinct');
  return messages.map(({ id, ...rest }) => {
    assert.ok(typeof id === 'string' && id.length > 0, "typeof id === 'string' && id.length > 0");
    return rest;
  });
}

async function inject(app: App, url: string, payload: unknown, headers: Record<string, string>): Promise<Answer> {
  const res = await app.inject({
    method: 'POST',
    url,
    headers,
    ...(typeof payload === 'string' ? { payload } : { payload: payload as Record<string, unknown> }),
  });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>(), headers: res.headers };
}

await describeStoresOnFakeClock('messaging: /openapi/ send endpoints', (t, clock) => {
  let owner: TestUser;
  let a: TestUser;
  let b: TestUser;
  let c: TestUser;
  let energizer: TestUser;
  let weak: TestUser;
  let bot: BotCreds;
  let developer: TestUser;
  let appCreds: Creds;
  const group = uid('g');
  const adminGroup = uid('g');
  const otherGroup = uid('g');
  const at = () => new Date(clock.now()).toISOString();

  const key = (creds: Creds) => ({ 'x-api-key': creds.api_key });
  const signed = (creds: Creds) => signedHeaders(creds, { now: clock.now() });
  const modes = [
    ['signed', signed],
    ['key-only', key],
  ] as const;
  const send = (url: string, payload: unknown, headers: Record<string, string> = key(bot)) =>
    inject(t().app, url, payload, headers);
  const accepted = (r: Answer, what = '') => {
    assert.equal(r.status, 200, `${what} ${JSON.stringify(r.body)}`);
    assert.deepEqual(r.body, ACCEPTED, what);
    assert.equal(r.headers['idempotent-replayed'], undefined, what);
  };
  const refused = (r: Answer, status: number, body: Record<string, unknown>, what = '') => {
    assert.equal(r.status, status, `${what} ${JSON.stringify(r.body)}`);
    assert.deepEqual(r.body, body, what);
  };
  /** Each object_name in `others` sent to `url` is refused with the list of the ones it takes. */
  const refusesOthers = async (url: string, body: (objectName: string) => unknown, others: string[], takes: string) => {
    for (const objectName of others) {
      refused(
        await send(url, body(objectName)),
        401,
        paramError(`body.object_name: must be one of ${takes}`),
        objectName,
      );
    }
  };
  const watch = () => watchOutbox(t().app);
  const groupRow = (gid: string, o: Partial<OutboxMessage> & Pick<OutboxMessage, 'object_name' | 'content'>) => ({
    chat_type: 'group',
    group_id: gid,
    from_user_id: bot.bot_user_id,
    mention_user_ids: [],
    created_at: at(),
    ...o,
  });
  const privateRow = (to: string, o: Partial<OutboxMessage> & Pick<OutboxMessage, 'object_name' | 'content'>) => ({
    chat_type: 'private',
    to_user_id: to,
    from_user_id: bot.bot_user_id,
    mention_user_ids: [],
    created_at: at(),
    ...o,
  });
  const groupEvent = (gid: string) => ({
    type: 'group.upserted',
    data: { group_id: gid, name: `name of ${gid}`, invite_url: `https://chat.example/g/${gid}` },
  });
  const join = (gid: string, userId: string, role = 'member') => ({
    type: 'group.member.joined',
    data: { group_id: gid, user_id: userId, role },
  });
  const follow = (follower: string, followed: string) => ({
    type: 'follow.created',
    data: { follower_id: follower, followed_id: followed },
  });
  const newBot = async (): Promise<BotCreds> => {
    const [o] = (await createUsers(t().app, 1)) as [TestUser];
    return createBot(t().app, o.user_id);
  };

  it('builds users, a bot, an app and groups through events', async () => {
    [owner, a, b, c, developer] = (await createUsers(t().app, 5)) as [TestUser, TestUser, TestUser, TestUser, TestUser];
    [energizer] = (await createUsers(t().app, 1, { level: 5 })) as [TestUser];
    [weak] = (await createUsers(t().app, 1, { level: 4 })) as [TestUser];
    bot = await createBot(t().app, owner.user_id);
    appCreds = await createApp(t().app, developer.user_id);
    await applyEvents(t().app, [
      groupEvent(group),
      groupEvent(adminGroup),
      groupEvent(otherGroup),
      join(group, bot.bot_user_id),
      join(group, a.user_id),
      join(group, b.user_id),
      join(group, developer.user_id),
      join(adminGroup, bot.bot_user_id),
      join(adminGroup, a.user_id),
      join(otherGroup, a.user_id),
    ]);
  });

  // ------------------------------------------------------------------ accepted sends

  it('POST /openapi/messages/group/send accepts text, richtext, RC:TxtMsg and RCD:Graphic, signed and key-only', async () => {
    const w = await watch();
    const expected: unknown[] = [];
    for (const [mode, headers] of modes) {
      const bodies = [
        { group_id: group, to_user_id: a.user_id, object_name: 'text', content: `plain ${mode}` },
        { group_id: group, object_name: 'richtext', title: `Weekly ${mode}`, content: RICH },
        { group_id: group, to_user_id: b.user_id, object_name: 'RC:TxtMsg', message: `txt ${mode}` },
        { group_id: group, to_user_id: '', object_name: 'RCD:Graphic', title: `Graphic ${mode}`, content: RICH },
      ];
      for (const body of bodies) accepted(await send(GROUP_SEND, body, headers(bot)), `${mode} ${body.object_name}`);
      expected.push(
        groupRow(group, { object_name: 'text', content: `plain ${mode}`, mention_user_ids: [a.user_id] }),
        groupRow(group, { object_name: 'richtext', title: `Weekly ${mode}`, content: RICH }),
        groupRow(group, { object_name: 'RC:TxtMsg', content: `txt ${mode}`, mention_user_ids: [b.user_id] }),
        groupRow(group, { object_name: 'RCD:Graphic', title: `Graphic ${mode}`, content: RICH }),
      );
    }
    assert.deepEqual(withoutIds(await w.added()), expected);
  });

  it('POST /openapi/send_robot_group_message accepts RC:TxtMsg and RCD:Graphic only', async () => {
    const w = await watch();
    for (const [mode, headers] of modes) {
      accepted(
        await send(
          OLD_GROUP_SEND,
          { group_id: group, to_user_id: a.user_id, object_name: 'RC:TxtMsg', message: `old ${mode}` },
          headers(bot),
        ),
      );
      accepted(
        await send(
          OLD_GROUP_SEND,
          { group_id: group, object_name: 'RCD:Graphic', title: 'G', content: RICH },
          headers(bot),
        ),
      );
    }
    assert.deepEqual(withoutIds(await w.added()), [
      groupRow(group, { object_name: 'RC:TxtMsg', content: 'old signed', mention_user_ids: [a.user_id] }),
      groupRow(group, { object_name: 'RCD:Graphic', title: 'G', content: RICH }),
      groupRow(group, { object_name: 'RC:TxtMsg', content: 'old key-only', mention_user_ids: [a.user_id] }),
      groupRow(group, { object_name: 'RCD:Graphic', title: 'G', content: RICH }),
    ]);
    await refusesOthers(
      OLD_GROUP_SEND,
      (objectName) => ({ group_id: group, object_name: objectName, title: 'T', content: 'x' }),
      ['text', 'richtext', 'RCD:Command'],
      'RC:TxtMsg, RCD:Graphic',
    );
    assert.deepEqual(await w.added(), []);
  });

  it('POST /openapi/messages/private/send accepts text, richtext and RCD:Command, signed and key-only', async () => {
    const w = await watch();
    const expected: unknown[] = [];
    for (const [mode, headers] of modes) {
      accepted(await send(PRIVATE_SEND, { to_user_id: a.user_id, object_name: 'text', content: mode }, headers(bot)));
      accepted(
        await send(
          PRIVATE_SEND,
          { to_user_id: b.user_id, object_name: 'richtext', title: 'Hi', content: RICH },
          headers(bot),
        ),
      );
      accepted(await send(PRIVATE_SEND, { to_user_id: c.user_id, object_name: 'richtext', content: RICH }));
      accepted(
        await send(
          PRIVATE_SEND,
          { to_user_id: a.user_id, object_name: 'RCD:Command', message: `/${mode}` },
          headers(bot),
        ),
      );
      expected.push(
        privateRow(a.user_id, { object_name: 'text', content: mode }),
        privateRow(b.user_id, { object_name: 'richtext', title: 'Hi', content: RICH }),
        privateRow(c.user_id, { object_name: 'richtext', content: RICH }),
        privateRow(a.user_id, { object_name: 'RCD:Command', content: `/${mode}` }),
      );
    }
    assert.deepEqual(withoutIds(await w.added()), expected);
  });

  it('POST /openapi/send_robot_message accepts RCD:Command only', async () => {
    const w = await watch();
    for (const [, headers] of modes) {
      accepted(
        await send(
          OLD_PRIVATE_SEND,
          { to_user_id: b.user_id, object_name: 'RCD:Command', message: '/start' },
          headers(bot),
        ),
      );
    }
    assert.deepEqual(withoutIds(await w.added()), [
      privateRow(b.user_id, { object_name: 'RCD:Command', content: '/start' }),
      privateRow(b.user_id, { object_name: 'RCD:Command', content: '/start' }),
    ]);
    await refusesOthers(
      OLD_PRIVATE_SEND,
      (objectName) => ({ to_user_id: b.user_id, object_name: objectName, content: 'x' }),
      ['text', 'richtext'],
      'RCD:Command',
    );
    assert.deepEqual(await w.added(), []);
  });

  it('an app (not a bot) key sends as the developer who owns the app', async () => {
    const w = await watch();
    accepted(await send(GROUP_SEND, { group_id: group, object_name: 'text', content: 'from app' }, signed(appCreds)));
    accepted(await send(PRIVATE_SEND, { to_user_id: a.user_id, object_name: 'text', content: 'dm' }, key(appCreds)));
    assert.deepEqual(withoutIds(await w.added()), [
      groupRow(group, { object_name: 'text', content: 'from app', from_user_id: developer.user_id }),
      privateRow(a.user_id, { object_name: 'text', content: 'dm', from_user_id: developer.user_id }),
    ]);
  });

  it('the longest content (5000) and title (256) are accepted', async () => {
    const w = await watch();
    const long = 'é'.repeat(5000);
    const title = 't'.repeat(256);
    accepted(await send(GROUP_SEND, { group_id: group, object_name: 'richtext', title, content: long }));
    accepted(await send(OLD_PRIVATE_SEND, { to_user_id: a.user_id, object_name: 'RCD:Command', message: long }));
    assert.deepEqual(withoutIds(await w.added()), [
      groupRow(group, { object_name: 'richtext', title, content: long }),
      privateRow(a.user_id, { object_name: 'RCD:Command', content: long }),
    ]);
  });

  it('with RATE_LIMITS off nothing is rate limited', async () => {
    const w = await watch();
    for (let i = 0; i < 8; i++) {
      accepted(await send(PRIVATE_SEND, { to_user_id: c.user_id, object_name: 'text', content: `n${i}` }), `#${i}`);
    }
    assert.equal((await w.added()).length, 8);
  });

  // ------------------------------------------------------------------ refusals, nothing stored

  it('every bad input is a parameter error (HTTP 401) and stores nothing', async () => {
    const inGroup = (fields: Record<string, unknown>) => ({ group_id: group, ...fields });
    const toA = (fields: Record<string, unknown>) => ({ to_user_id: a.user_id, ...fields });
    const tooLong = (field: string, max: number) => `body.${field}: must NOT have more than ${max} characters`;
    const needs = (field: string, objectName: string) => `body.${field}: required, not empty, for ${objectName}`;
    // [content, the error in it]: each is sent as group richtext, older-path group RCD:Graphic and private richtext.
    const markup: [string, string][] = [
      [tag({ uitag: 'a', text: 'x', href: 'http://docs.example/' }), 'tag 1 (a): href must start with https://'],
      [tag({ uitag: 'img', src: 'http://img.example/p.png' }), 'tag 1 (img): src must start with https://'],
      [tag({ uitag: 'img', src: '', href: 'http://x.example/' }), 'tag 1 (img): href must start with https://'],
      [`x ${tag({ uitag: 'video', src: 'https://v.example/' })}`, 'tag 1: unknown uitag "video"'],
      [`x {"uitag":"a","text":"x"`, 'tag 1: malformed JSON'],
      [tag({ uitag: 'font', text: 'x', bold: 'yes' }), 'tag 1 (font): bold must be "true" or "false"'],
      [tag({ uitag: 'font', text: 'x', italic: true }), 'tag 1 (font): italic must be "true" or "false"'],
      [
        tag({ uitag: 'font', text: 'x', color: 'red' }),
        'tag 1 (font): color must be RRGGBB or RGB in hex, with or without #',
      ],
      [
        tag({ uitag: 'a', text: 'x', href: 'https://docs.example/', target: '_blank' }),
        'tag 1 (a): unknown field "target"',
      ],
      [
        `${tag({ uitag: 'a', text: 'ok', href: 'https://ok.example/' })}${tag({ uitag: 'font' })}`,
        'tag 2 (font): text is required',
      ],
    ];
    const long = 'x'.repeat(5001);
    // [path, body, the parameter error]
    const cases: [string, unknown, string][] = [
      ...markup.flatMap(([content, error]): [string, unknown, string][] => [
        [GROUP_SEND, inGroup({ object_name: 'richtext', title: 'T', content }), `content: ${error}`],
        [OLD_GROUP_SEND, inGroup({ object_name: 'RCD:Graphic', title: 'T', content }), `content: ${error}`],
        [PRIVATE_SEND, toA({ object_name: 'richtext', content }), `content: ${error}`],
      ]),
      [GROUP_SEND, inGroup({ object_name: 'text', content: long }), tooLong('content', 5000)],
      [PRIVATE_SEND, toA({ object_name: 'text', content: long }), tooLong('content', 5000)],
      [OLD_GROUP_SEND, inGroup({ object_name: 'RC:TxtMsg', message: long }), tooLong('message', 5000)],
      [OLD_PRIVATE_SEND, toA({ object_name: 'RCD:Command', message: long }), tooLong('message', 5000)],
      [GROUP_SEND, inGroup({ object_name: 'richtext', title: 't'.repeat(257), content: 'x' }), tooLong('title', 256)],
      [GROUP_SEND, inGroup({ object_name: 'text', content: '' }), needs('content', 'text')],
      [PRIVATE_SEND, toA({ object_name: 'text', content: '' }), needs('content', 'text')],
      [OLD_GROUP_SEND, inGroup({ object_name: 'RC:TxtMsg', message: '' }), needs('message', 'RC:TxtMsg')],
      [
        GROUP_SEND,
        inGroup({ object_name: 'video', content: 'x' }),
        'body.object_name: must be one of text, richtext, RC:TxtMsg, RCD:Graphic',
      ],
      [
        PRIVATE_SEND,
        toA({ object_name: 'RC:TxtMsg', message: 'x' }),
        'body.object_name: must be one of text, richtext, RCD:Command',
      ],
      [GROUP_SEND, { group_id: group, content: 'x' }, 'body.object_name: required'],
      [GROUP_SEND, { object_name: 'text', content: 'x' }, 'body.group_id: required'],
      [OLD_GROUP_SEND, { object_name: 'RC:TxtMsg', message: 'x' }, 'body.group_id: required'],
      [
        GROUP_SEND,
        { group_id: '', object_name: 'text', content: 'x' },
        'body.group_id: must NOT have fewer than 1 characters',
      ],
      [PRIVATE_SEND, { object_name: 'text', content: 'x' }, 'body.to_user_id: required'],
      [OLD_PRIVATE_SEND, { object_name: 'RCD:Command', message: 'x' }, 'body.to_user_id: required'],
      [GROUP_SEND, inGroup({ object_name: 'text', message: 'x' }), needs('content', 'text')],
      [GROUP_SEND, inGroup({ object_name: 'RC:TxtMsg', content: 'x' }), needs('message', 'RC:TxtMsg')],
      [OLD_PRIVATE_SEND, toA({ object_name: 'RCD:Command', content: 'x' }), needs('message', 'RCD:Command')],
      [OLD_GROUP_SEND, inGroup({ object_name: 'RCD:Graphic', content: 'x' }), needs('title', 'RCD:Graphic')],
      [GROUP_SEND, inGroup({ object_name: 'RCD:Graphic', title: '', content: 'x' }), needs('title', 'RCD:Graphic')],
      [GROUP_SEND, inGroup({ object_name: 'richtext', content: 'x' }), needs('title', 'richtext')],
      [GROUP_SEND, inGroup({ object_name: 'RCD:Graphic', title: 'T' }), needs('content', 'RCD:Graphic')],
      [GROUP_SEND, inGroup({ object_name: 'text', content: 'x', color: 'red' }), 'body.color: unknown field'],
      [PRIVATE_SEND, toA({ object_name: 'text', content: 'x', group_id: group }), 'body.group_id: unknown field'],
      [GROUP_SEND, { group_id: 123, object_name: 'text', content: 'x' }, 'body.group_id: must be string'],
      [PRIVATE_SEND, { to_user_id: 7, object_name: 'text', content: 'x' }, 'body.to_user_id: must be string'],
      [GROUP_SEND, inGroup({ object_name: 'text', content: ['x'] }), 'body.content: must be string'],
      [GROUP_SEND, inGroup({ to_user_id: 'nobody', object_name: 'text', content: 'x' }), 'mention: unknown user'],
      [GROUP_SEND, '{"group_id":', 'body: malformed JSON'],
    ];
    const w = await watch();
    for (const [i, [url, body, detail]] of cases.entries()) {
      const what = `case ${i} (${url}): ${detail}`;
      const headers = typeof body === 'string' ? { ...key(bot), 'content-type': 'application/json' } : key(bot);
      refused(await send(url, body, headers), 401, paramError(detail), what);
      assert.deepEqual(await w.added(), [], `${what}: nothing stored`);
    }
  });

  it('a body over 64 KiB is refused with 413 and stores nothing', async () => {
    const w = await watch();
    const big = 'x'.repeat(65 * 1024);
    refused(await send(GROUP_SEND, { group_id: group, object_name: 'text', content: big }), 413, TOO_LARGE);
    refused(
      await send(PRIVATE_SEND, { to_user_id: a.user_id, object_name: 'text', content: big }, signed(bot)),
      413,
      TOO_LARGE,
    );
    refused(
      await send(OLD_PRIVATE_SEND, { to_user_id: a.user_id, object_name: 'RCD:Command', message: big }),
      413,
      TOO_LARGE,
    );
    assert.deepEqual(await w.added(), []);
  });

  it('a group the sender is not a member of is 403, an unknown group 404, an unknown recipient 404', async () => {
    const w = await watch();
    for (const [url, body] of [
      [GROUP_SEND, { object_name: 'text', content: 'x' }],
      [OLD_GROUP_SEND, { object_name: 'RC:TxtMsg', message: 'x' }],
    ] as const) {
      refused(await send(url, { ...body, group_id: otherGroup }), 403, NOT_MEMBER, url);
      refused(await send(url, { ...body, group_id: 'no-such-group' }, signed(bot)), 404, UNKNOWN_GROUP, url);
    }
    const unknownRecipient = { error: 'Not Found', code: 404, message: 'unknown user', detail: 'unknown recipient' };
    refused(
      await send(PRIVATE_SEND, { to_user_id: 'nobody', object_name: 'text', content: 'x' }),
      404,
      unknownRecipient,
    );
    refused(
      await send(OLD_PRIVATE_SEND, { to_user_id: 'nobody', object_name: 'RCD:Command', message: 'x' }),
      404,
      unknownRecipient,
    );
    // After leaving, the bot can no longer send to the group.
    await applyEvents(t().app, [
      { type: 'group.member.left', data: { group_id: adminGroup, user_id: bot.bot_user_id } },
    ]);
    refused(await send(GROUP_SEND, { group_id: adminGroup, object_name: 'text', content: 'x' }), 403, NOT_MEMBER);
    assert.deepEqual(await w.added(), []);
  });

  it('an unknown or missing API key is refused before anything else', async () => {
    const w = await watch();
    const unavailable = { error: 'Bad Request', code: 400, message: 'You X-API-KEY is not available' };
    refused(
      await send(GROUP_SEND, { group_id: group, object_name: 'text', content: 'x' }, { 'x-api-key': 'nope' }),
      400,
      unavailable,
    );
    refused(
      await send(PRIVATE_SEND, { to_user_id: a.user_id, object_name: 'text', content: 'x' }, {}),
      400,
      unavailable,
    );
    const wrongSecret = signedHeaders(bot, { now: clock.now(), secret: 'not-the-secret' });
    refused(await send(GROUP_SEND, { group_id: group, object_name: 'text', content: 'x' }, wrongSecret), 401, {
      error: 'Unauthorized',
      code: 401,
      message: 'signature mismatch',
    });
    assert.deepEqual(await w.added(), []);
  });

  // ------------------------------------------------------------------ images and the bot level

  it('an image from a level-1 bot is refused in a group where it is a member and in private, allowed where it is admin', async () => {
    const imgBot = await newBot();
    const asAdmin = uid('g');
    const asMember = uid('g');
    await applyEvents(t().app, [
      groupEvent(asAdmin),
      groupEvent(asMember),
      join(asAdmin, imgBot.bot_user_id),
      join(asMember, imgBot.bot_user_id),
      join(asAdmin, imgBot.bot_user_id, 'admin'),
    ]);
    const content = `${IMG}look`;
    const w = await watch();
    const imgSends = (gid: string) =>
      [
        [GROUP_SEND, { group_id: gid, object_name: 'richtext', title: 'T', content }],
        [GROUP_SEND, { group_id: gid, object_name: 'RCD:Graphic', title: 'T', content }],
        [OLD_GROUP_SEND, { group_id: gid, object_name: 'RCD:Graphic', title: 'T', content }],
      ] as const;
    const privateImg = [
      [PRIVATE_SEND, { to_user_id: a.user_id, object_name: 'richtext', content }],
      [
        PRIVATE_SEND,
        { to_user_id: a.user_id, object_name: 'richtext', title: 'T', content: `x ${IMG.replace('head', 'foot')}` },
      ],
    ] as const;
    for (const [url, body] of [...imgSends(asMember), ...privateImg]) {
      refused(await send(url, body, key(imgBot)), 403, IMAGE_LEVEL, `${url} ${JSON.stringify(body)}`);
      refused(await send(url, body, signed(imgBot)), 403, IMAGE_LEVEL, `${url} signed`);
    }
    assert.deepEqual(await w.added(), [], 'nothing stored');
    // A text message, a link and an image without src (a placeholder) need no level.
    const placeholder = tag({ uitag: 'img', src: '', position: 'head' });
    accepted(
      await send(
        GROUP_SEND,
        { group_id: asMember, object_name: 'richtext', title: 'T', content: `${placeholder}x` },
        key(imgBot),
      ),
    );
    accepted(await send(PRIVATE_SEND, { to_user_id: a.user_id, object_name: 'richtext', content: RICH }, key(imgBot)));
    // Administrator of asAdmin: exempt there only.
    for (const [url, body] of imgSends(asAdmin)) accepted(await send(url, body, key(imgBot)), url);
    const rows = withoutIds(await w.added());
    assert.deepEqual(
      rows.map((r) => [r.chat_type, r.group_id ?? r.to_user_id, r.object_name, r.from_user_id]),
      [
        ['group', asMember, 'richtext', imgBot.bot_user_id],
        ['private', a.user_id, 'richtext', imgBot.bot_user_id],
        ['group', asAdmin, 'richtext', imgBot.bot_user_id],
        ['group', asAdmin, 'RCD:Graphic', imgBot.bot_user_id],
        ['group', asAdmin, 'RCD:Graphic', imgBot.bot_user_id],
      ],
    );
    for (const [url, body] of [...imgSends(asMember), ...privateImg]) {
      refused(await send(url, body, key(imgBot)), 403, IMAGE_LEVEL, `still refused: ${url}`);
    }
    // An admin of a group who is demoted loses the exemption.
    await applyEvents(t().app, [join(asAdmin, imgBot.bot_user_id, 'moderator')]);
    refused(
      await send(GROUP_SEND, { group_id: asAdmin, object_name: 'richtext', title: 'T', content }, key(imgBot)),
      403,
      IMAGE_LEVEL,
    );
    assert.deepEqual(await w.added(), []);
  });

  it('bot.energized by a Lv.5+ user raises the bot to level 2 and images are accepted everywhere', async () => {
    const imgBot = await newBot();
    const gid = uid('g');
    await applyEvents(t().app, [groupEvent(gid), join(gid, imgBot.bot_user_id)]);
    const content = `${IMG}look`;
    const groupImg = { group_id: gid, object_name: 'richtext', title: 'T', content };
    const privateImg = { to_user_id: b.user_id, object_name: 'richtext', content };
    const w = await watch();
    // A Lv.4 user cannot energize.
    const low = await postEvents(t().app, [
      { id: uid('evt'), type: 'bot.energized', data: { bot_user_id: imgBot.bot_user_id, by_user_id: weak.user_id } },
    ]);
    assert.equal(low.status, 200);
    assert.equal((low.body.refused as { reason: string }[])[0]?.reason, 'level_too_low');
    refused(await send(GROUP_SEND, groupImg, key(imgBot)), 403, IMAGE_LEVEL);
    refused(await send(PRIVATE_SEND, privateImg, key(imgBot)), 403, IMAGE_LEVEL);
    await applyEvents(t().app, [
      { type: 'bot.energized', data: { bot_user_id: imgBot.bot_user_id, by_user_id: energizer.user_id } },
    ]);
    accepted(await send(GROUP_SEND, groupImg, key(imgBot)));
    accepted(await send(PRIVATE_SEND, privateImg, signed(imgBot)));
    accepted(await send(OLD_GROUP_SEND, { ...groupImg, object_name: 'RCD:Graphic' }, key(imgBot)));
    const from = imgBot.bot_user_id;
    assert.deepEqual(withoutIds(await w.added()), [
      { ...groupRow(gid, { object_name: 'richtext', title: 'T', content }), from_user_id: from },
      { ...privateRow(b.user_id, { object_name: 'richtext', content }), from_user_id: from },
      { ...groupRow(gid, { object_name: 'RCD:Graphic', title: 'T', content }), from_user_id: from },
    ]);
  });

  // ------------------------------------------------------------------ privacy

  it("a bot whose private-message setting is 'following' messages only users it follows", async () => {
    const pBot = await newBot();
    const [x, y, z] = (await createUsers(t().app, 3)) as [TestUser, TestUser, TestUser];
    await applyEvents(t().app, [follow(pBot.bot_user_id, x.user_id), follow(y.user_id, pBot.bot_user_id)]);
    await t()
      .services.db.k.updateTable('bots')
      .set({ private_message_policy: 'following' })
      .where('bot_user_id', '=', pBot.bot_user_id)
      .execute();
    const w = await watch();
    const dm = (to: string) => ({ to_user_id: to, object_name: 'text', content: `hi ${to}` });
    accepted(await send(PRIVATE_SEND, dm(x.user_id), key(pBot)));
    accepted(
      await send(OLD_PRIVATE_SEND, { to_user_id: x.user_id, object_name: 'RCD:Command', message: '/x' }, signed(pBot)),
    );
    refused(
      await send(PRIVATE_SEND, dm(y.user_id), key(pBot)),
      403,
      PRIVATE_REFUSED,
      'follower the bot does not follow',
    );
    refused(await send(PRIVATE_SEND, dm(z.user_id), key(pBot)), 403, PRIVATE_REFUSED, 'stranger');
    refused(
      await send(OLD_PRIVATE_SEND, { to_user_id: z.user_id, object_name: 'RCD:Command', message: '/x' }, key(pBot)),
      403,
      PRIVATE_REFUSED,
    );
    assert.deepEqual(
      withoutIds(await w.added()).map((r) => [r.to_user_id, r.from_user_id]),
      [
        [x.user_id, pBot.bot_user_id],
        [x.user_id, pBot.bot_user_id],
      ],
    );
    await applyEvents(t().app, [
      { type: 'follow.deleted', data: { follower_id: pBot.bot_user_id, followed_id: x.user_id } },
    ]);
    refused(await send(PRIVATE_SEND, dm(x.user_id), key(pBot)), 403, PRIVATE_REFUSED, 'after unfollowing');
    await t()
      .services.db.k.updateTable('bots')
      .set({ private_message_policy: 'everyone' })
      .where('bot_user_id', '=', pBot.bot_user_id)
      .execute();
    accepted(await send(PRIVATE_SEND, dm(z.user_id), key(pBot)), 'everyone');
    assert.deepEqual(
      withoutIds(await w.added()).map((r) => r.to_user_id),
      [z.user_id],
    );
  });

  it("a bot whose private-message setting is 'friends' messages only mutual follows", async () => {
    const pBot = await newBot();
    const [friend, followed, follower, stranger] = (await createUsers(t().app, 4)) as [
      TestUser,
      TestUser,
      TestUser,
      TestUser,
    ];
    const botId = pBot.bot_user_id;
    await applyEvents(t().app, [
      follow(botId, friend.user_id),
      follow(friend.user_id, botId),
      follow(botId, followed.user_id),
      follow(follower.user_id, botId),
    ]);
    await t()
      .services.db.k.updateTable('bots')
      .set({ private_message_policy: 'friends' })
      .where('bot_user_id', '=', botId)
      .execute();
    const w = await watch();
    const dm = (to: string) => ({ to_user_id: to, object_name: 'text', content: 'hello' });
    accepted(await send(PRIVATE_SEND, dm(friend.user_id), key(pBot)));
    for (const [who, u] of [
      ['followed only', followed],
      ['follower only', follower],
      ['stranger', stranger],
    ] as const) {
      refused(await send(PRIVATE_SEND, dm(u.user_id), key(pBot)), 403, PRIVATE_REFUSED, who);
    }
    assert.deepEqual(
      withoutIds(await w.added()).map((r) => r.to_user_id),
      [friend.user_id],
    );
    // Becoming mutual makes a friend.
    await applyEvents(t().app, [follow(followed.user_id, botId)]);
    accepted(await send(PRIVATE_SEND, dm(followed.user_id), key(pBot)));
    assert.deepEqual(
      withoutIds(await w.added()).map((r) => r.to_user_id),
      [followed.user_id],
    );
  });

  // ------------------------------------------------------------------ Idempotency-Key

  it('Idempotency-Key: a repeat is answered from the first send, once per 24 hours', async () => {
    const w = await watch();
    const k1 = uid('idem');
    const body = { to_user_id: a.user_id, object_name: 'text', content: 'once' };
    const first = await send(PRIVATE_SEND, body, { ...key(bot), 'idempotency-key': k1 });
    accepted(first);
    const again = await send(PRIVATE_SEND, { ...body, content: 'changed' }, { ...signed(bot), 'idempotency-key': k1 });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(withoutIds(await w.added()), [privateRow(a.user_id, { object_name: 'text', content: 'once' })]);

    // The key is per credential: another bot's same key performs.
    const other = await newBot();
    accepted(await send(PRIVATE_SEND, body, { ...key(other), 'idempotency-key': k1 }));
    assert.equal((await w.added()).length, 1);

    const k2 = uid('idem');
    accepted(
      await send(
        GROUP_SEND,
        { group_id: group, object_name: 'text', content: 'k2' },
        { ...key(bot), 'idempotency-key': k2 },
      ),
    );
    assert.deepEqual(withoutIds(await w.added()), [groupRow(group, { object_name: 'text', content: 'k2' })]);

    clock.advance(24 * 3600 * 1000 - 1);
    const late = await send(PRIVATE_SEND, body, { ...key(bot), 'idempotency-key': k1 });
    assert.equal(late.headers['idempotent-replayed'], 'true', 'still inside 24 h');
    assert.deepEqual(await w.added(), []);

    clock.advance(2);
    const expired = await send(PRIVATE_SEND, { ...body, content: 'twice' }, { ...key(bot), 'idempotency-key': k1 });
    accepted(expired, 'after 24 h the key performs again');
    assert.deepEqual(withoutIds(await w.added()), [privateRow(a.user_id, { object_name: 'text', content: 'twice' })]);
    const replayAgain = await send(PRIVATE_SEND, body, { ...key(bot), 'idempotency-key': k1 });
    assert.equal(replayAgain.headers['idempotent-replayed'], 'true');
    assert.deepEqual(await w.added(), []);
  });

  it('Idempotency-Key: concurrent repeats store one message', async () => {
    const w = await watch();
    const k = uid('idem');
    const body = { group_id: group, object_name: 'text', content: 'race' };
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => send(GROUP_SEND, body, { ...key(bot), 'idempotency-key': k })),
    );
    for (const r of answers) assert.deepEqual([r.status, r.body], [200, ACCEPTED]);
    assert.equal(answers.filter((r) => r.headers['idempotent-replayed'] === 'true').length, 5);
    assert.deepEqual(withoutIds(await w.added()), [groupRow(group, { object_name: 'text', content: 'race' })]);
  });

  it('Idempotency-Key: a refused send does not use up its key', async () => {
    const w = await watch();
    const k = uid('idem');
    const sendOnce = (body: Record<string, unknown>) => send(GROUP_SEND, body, { ...key(bot), 'idempotency-key': k });
    refused(await sendOnce({ group_id: otherGroup, object_name: 'text', content: 'x' }), 403, NOT_MEMBER);
    refused(
      await sendOnce({ group_id: group, object_name: 'text', content: '' }),
      401,
      paramError('body.content: required, not empty, for text'),
    );
    accepted(await sendOnce({ group_id: group, object_name: 'text', content: 'ok' }));
    const replay = await sendOnce({ group_id: group, object_name: 'text', content: 'ok' });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(withoutIds(await w.added()), [groupRow(group, { object_name: 'text', content: 'ok' })]);
  });
});

// ---------------------------------------------------------------------- rate limits

await describeStoresOnFakeClock(
  'messaging: rate limits (decisions.md section 3)',
  (t, limitClock) => {
    const key = (creds: Creds) => ({ 'x-api-key': creds.api_key });
    const send = (url: string, payload: unknown, headers: Record<string, string>) =>
      inject(t().app, url, payload, headers);
    const limited = (r: Answer, retryAfter: string, what = '') => {
      assert.equal(r.status, 429, `${what} ${JSON.stringify(r.body)}`);
      assert.deepEqual(r.body, TOO_MANY, what);
      assert.equal(r.headers['retry-after'], retryAfter, what);
    };
    const ok = (r: Answer, what = '') => {
      assert.equal(r.status, 200, `${what} ${JSON.stringify(r.body)}`);
      assert.deepEqual(r.body, ACCEPTED, what);
    };
    const freshBot = async (): Promise<BotCreds> => {
      const [o] = (await createUsers(t().app, 1)) as [TestUser];
      return createBot(t().app, o.user_id);
    };
    const dm = (to: TestUser, content = 'hi') => ({ to_user_id: to.user_id, object_name: 'text', content });

    it('a private chat takes a burst of 5, then 429 with Retry-After; one more after 1 s', async () => {
      const bot = await freshBot();
      const [a, b] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
      const w = await watchOutbox(t().app);
      const idem = uid('idem');
      ok(await send(PRIVATE_SEND, dm(a, 'm0'), { ...key(bot), 'idempotency-key': idem }));
      for (let i = 1; i < 5; i++) ok(await send(PRIVATE_SEND, dm(a, `m${i}`), key(bot)), `#${i}`);
      limited(await send(PRIVATE_SEND, dm(a, 'm5'), key(bot)), '1');
      limited(
        await send(OLD_PRIVATE_SEND, { to_user_id: a.user_id, object_name: 'RCD:Command', message: '/x' }, key(bot)),
        '1',
      );
      assert.deepEqual(
        (await w.added()).map((m) => m.content),
        ['m0', 'm1', 'm2', 'm3', 'm4'],
      );
      // A replay is not a new send: it is answered even while the chat is limited.
      const replay = await send(PRIVATE_SEND, dm(a, 'm0'), { ...key(bot), 'idempotency-key': idem });
      ok(replay, 'replay');
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      // Another chat of the same bot has its own bucket.
      ok(await send(PRIVATE_SEND, dm(b, 'other chat'), key(bot)));
      limitClock.advance(999);
      limited(await send(PRIVATE_SEND, dm(a, 'early'), key(bot)), '1', 'not yet a whole token');
      limitClock.advance(1);
      ok(await send(PRIVATE_SEND, dm(a, 'refilled'), key(bot)));
      limited(await send(PRIVATE_SEND, dm(a, 'again'), key(bot)), '1');
      assert.deepEqual(
        (await w.added()).map((m) => m.content),
        ['other chat', 'refilled'],
      );
    });

    it('a group takes 20 per minute, then 429 with Retry-After', async () => {
      const bot = await freshBot();
      const gid = uid('g');
      await applyEvents(t().app, [
        { type: 'group.upserted', data: { group_id: gid, name: 'g', invite_url: `https://chat.example/${gid}` } },
        { type: 'group.member.joined', data: { group_id: gid, user_id: bot.bot_user_id } },
      ]);
      const w = await watchOutbox(t().app);
      const msg = (i: number) => ({ group_id: gid, object_name: 'text', content: `g${i}` });
      for (let i = 0; i < 20; i++)
        ok(
          await send(
            i % 2 === 0 ? GROUP_SEND : OLD_GROUP_SEND,
            i % 2 === 0 ? msg(i) : { group_id: gid, object_name: 'RC:TxtMsg', message: `g${i}` },
            key(bot),
          ),
          `#${i}`,
        );
      limited(await send(GROUP_SEND, msg(20), key(bot)), '3');
      assert.equal((await w.added()).length, 20);
      limitClock.advance(3000);
      ok(await send(GROUP_SEND, msg(21), key(bot)));
      limited(await send(GROUP_SEND, msg(22), key(bot)), '3');
      assert.deepEqual(
        (await w.added()).map((m) => m.content),
        ['g21'],
      );
    });

    it('a bot sends at most 30 per second across all its chats', async () => {
      const bot = await freshBot();
      const users = await createUsers(t().app, 7);
      const gid = uid('g');
      await applyEvents(t().app, [
        { type: 'group.upserted', data: { group_id: gid, name: 'g', invite_url: `https://chat.example/${gid}` } },
        { type: 'group.member.joined', data: { group_id: gid, user_id: bot.bot_user_id } },
      ]);
      const w = await watchOutbox(t().app);
      // 6 chats x 5 = 30, within every per-chat burst.
      for (const u of users.slice(0, 6)) for (let i = 0; i < 5; i++) ok(await send(PRIVATE_SEND, dm(u), key(bot)));
      const seventh = users[6] as TestUser;
      limited(await send(PRIVATE_SEND, dm(seventh), key(bot)), '1', 'a fresh private chat');
      limited(
        await send(GROUP_SEND, { group_id: gid, object_name: 'text', content: 'x' }, key(bot)),
        '1',
        'a fresh group',
      );
      assert.equal((await w.added()).length, 30);
      // Another bot is not affected.
      const other = await freshBot();
      ok(await send(PRIVATE_SEND, dm(seventh), key(other)));
      limitClock.advance(1000);
      ok(await send(PRIVATE_SEND, dm(seventh), key(bot)));
      ok(await send(GROUP_SEND, { group_id: gid, object_name: 'text', content: 'x' }, key(bot)));
      assert.equal((await w.added()).length, 3);
    });

    it('sends refused by a busy chat do not spend the bot’s overall budget', async () => {
      const bot = await freshBot();
      const users = await createUsers(t().app, 7);
      const [busy, ...others] = users as [TestUser, ...TestUser[]];
      const w = await watchOutbox(t().app);
      for (let i = 0; i < 5; i++) ok(await send(PRIVATE_SEND, dm(busy), key(bot)));
      for (let i = 0; i < 40; i++) limited(await send(PRIVATE_SEND, dm(busy), key(bot)), '1', `retry #${i}`);
      // 25 of the 30 per second are left for the other chats.
      for (const u of others)
        for (let i = 0; i < 5; i++) {
          const r = await send(PRIVATE_SEND, dm(u), key(bot));
          if (others.indexOf(u) * 5 + i < 25) ok(r, `${others.indexOf(u)}/${i}`);
          else limited(r, '1', `${others.indexOf(u)}/${i}`);
        }
      assert.equal((await w.added()).length, 30);
    });

    it('sends their checks refuse spend no tokens and leave no bucket behind', async () => {
      const bot = await freshBot();
      const gid = uid('g');
      await applyEvents(t().app, [
        { type: 'group.upserted', data: { group_id: gid, name: 'g', invite_url: `https://chat.example/${gid}` } },
      ]);
      const msg = { group_id: gid, object_name: 'text', content: 'x' };
      for (let i = 0; i < 20; i++) {
        const r = await send(GROUP_SEND, msg, key(bot));
        assert.deepEqual([r.status, r.body], [403, NOT_MEMBER], `#${i}`);
      }
      await applyEvents(t().app, [{ type: 'group.member.joined', data: { group_id: gid, user_id: bot.bot_user_id } }]);
      limitClock.advance(1000);
      ok(await send(GROUP_SEND, msg, key(bot)), 'the refused sends spent none of the group’s 20');
      // Groups made up by the client are refused before any bucket is made for them.
      const limiter = t().services.shared.limiter;
      assert.ok(limiter instanceof MemoryRateLimiter, 'the test app limits in memory');
      const held = limiter.size;
      for (let i = 0; i < 20; i++) {
        const r = await send(GROUP_SEND, { ...msg, group_id: uid('made-up') }, key(bot));
        assert.deepEqual([r.status, r.body], [404, UNKNOWN_GROUP], `#${i}`);
      }
      assert.equal(limiter.size, held);
    });

    it('Idempotency-Key: repeats sent at once as the chat runs out get the replay, never a 429', async () => {
      const bot = await freshBot();
      const [a] = (await createUsers(t().app, 1)) as [TestUser];
      const w = await watchOutbox(t().app);
      for (let i = 0; i < 4; i++) ok(await send(PRIVATE_SEND, dm(a, `m${i}`), key(bot)), `#${i}`);
      const headers = { ...key(bot), 'idempotency-key': uid('idem') };
      // The repeats must arrive while the first is still being written: the store's writes are held
      // (on SQLite by holding its one connection, on PostgreSQL by a lock on the outbox) until each
      // of the six waits on it (on SQLite at its first read, on PostgreSQL in its own write) or was
      // answered without reaching it, as a 429 was.
      const { services } = t();
      const sends = mock.method(services.messaging, 'send');
      const runs = mock.method(services.work, 'run');
      let answered = 0;
      const waiting = () =>
        services.db.dialect === 'postgres' ? runs.mock.callCount() - 1 + answered >= 6 : sends.mock.callCount() === 6;
      let release = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      const held = services.work.run(async ({ tx }) => {
        if (services.db.dialect === 'postgres') await sql`lock table outbox_messages in exclusive mode`.execute(tx);
        await released;
      });
      const sending = Promise.all(
        Array.from({ length: 6 }, () => send(PRIVATE_SEND, dm(a, 'last'), headers).finally(() => answered++)),
      );
      while (!waiting()) await new Promise((resolve) => setImmediate(resolve));
      release();
      await held;
      mock.restoreAll();
      const answers = await sending;
      for (const r of answers) ok(r);
      assert.equal(answers.filter((r) => r.headers['idempotent-replayed'] === 'true').length, 5);
      assert.deepEqual(
        (await w.added()).map((m) => m.content),
        ['m0', 'm1', 'm2', 'm3', 'last'],
      );
    });

    it('an API key makes at most 100 reads per second on GET /openapi/user/info', async () => {
      const [owner, a] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
      const app1 = await createApp(t().app, owner.user_id);
      const app2 = await createApp(t().app, owner.user_id);
      const read = async (creds: Creds) => {
        const res = await t().app.inject({
          method: 'GET',
          url: `/openapi/user/info?user_id=${a.user_id}`,
          headers: key(creds),
        });
        return { status: res.statusCode, body: res.json<Record<string, unknown>>(), headers: res.headers };
      };
      for (let i = 0; i < 100; i++) {
        const r = await read(app1);
        assert.equal(r.status, 200, `#${i} ${JSON.stringify(r.body)}`);
      }
      limited(await read(app1), '1');
      const signedRead = await t().app.inject({
        method: 'GET',
        url: `/openapi/user/info?user_id=${a.user_id}`,
        headers: signedHeaders(app1, { now: limitClock.now() }),
      });
      assert.equal(signedRead.statusCode, 429, 'signed reads share the key’s bucket');
      assert.equal((await read(app2)).status, 200, 'another key has its own bucket');
      // Sends are not reads.
      ok(await send(PRIVATE_SEND, dm(a), key(app1)));
      limitClock.advance(10);
      assert.equal((await read(app1)).status, 200, 'one read back after 10 ms');
      limited(await read(app1), '1');
    });
  },
  { env: { RATE_LIMITS: 'on' } },
);

await describeStoresOnFakeClock(
  'messaging: a send takes a token from each of its buckets or from none',
  (t, limitClock) => {
    const key = (creds: Creds) => ({ 'x-api-key': creds.api_key });
    const send = (to: TestUser, creds: Creds) =>
      inject(t().app, PRIVATE_SEND, { to_user_id: to.user_id, object_name: 'text', content: 'hi' }, key(creds));
    /** The status and the refusing bucket's policy of an answer. */
    const outcome = (r: Answer): unknown[] => [r.status, r.headers['ratelimit-policy']];
    const SENT = [200, undefined];
    const BY_BOT = [429, '"send";q=2;w=1'];
    const BY_CHAT = [429, '"chat";q=5;w=5'];

    it('a send the bot’s overall bucket refuses spends none of its chat’s', async () => {
      const [owner, c, d] = (await createUsers(t().app, 3)) as [TestUser, TestUser, TestUser];
      const bot = await createBot(t().app, owner.user_id);
      assert.deepEqual(outcome(await send(c, bot)), SENT);
      assert.deepEqual(outcome(await send(d, bot)), SENT);
      for (let i = 0; i < 4; i++) assert.deepEqual(outcome(await send(c, bot)), BY_BOT, `#${i}`);
      // C kept its four tokens (five, a second on): the bot's two a second all reach it for four seconds.
      for (let second = 1; second <= 4; second++) {
        limitClock.advance(1000);
        for (let i = 0; i < 2; i++) assert.deepEqual(outcome(await send(c, bot)), SENT, `${second} s, #${i}`);
      }
      limitClock.advance(1000);
      assert.deepEqual(outcome(await send(c, bot)), SENT);
      // C is empty now and the bot is not: refused by C's bucket, the send leaves the bot its token.
      assert.deepEqual(outcome(await send(c, bot)), BY_CHAT);
      assert.deepEqual(outcome(await send(d, bot)), SENT, 'the chat’s refusal left the bot its token');
    });

    it('sendMessageToFans refused for want of the permission spends none of the bot’s budget', async () => {
      const [owner, fan] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
      const bot = await createBot(t().app, owner.user_id);
      await applyEvents(t().app, [
        { type: 'follow.created', data: { follower_id: fan.user_id, followed_id: bot.bot_user_id } },
      ]);
      const fans = () => botCall(t().app, 'sendMessageToFans', bot.api_key, { text: 'news' });
      for (let i = 0; i < 5; i++) assert.equal((await fans()).body.error_code, 403, `#${i}`);
      const application = await applyForPermission(t().app, bot.bot_user_id, 'subscription_account');
      assert.equal(await approveApplication(t().app, application.id), 'approved');
      assert.deepEqual(result(await fans()), { sent: 1 });
      assert.deepEqual(result(await fans()), { sent: 1 });
      assert.equal((await fans()).body.error_code, 429);
    });
  },
  { env: { RATE_LIMITS: 'on', RATE_LIMIT_BOT_PER_S: '2' } },
);

// ---------------------------------------------------------------------- Redis: limits shared by instances

interface Instance {
  app: App;
  close(): Promise<void>;
}

/** One instance of the platform on a shared store and a shared Redis, like a second server. */
async function startInstance(
  url: string,
  schema: string | undefined,
  key: Buffer,
  clock: FakeClock,
  prefix: string,
): Promise<Instance> {
  const config = loadConfig({ DATABASE_URL: url, ADMIN_TOKEN, RATE_LIMITS: 'on', REDIS_URL, REDIS_PREFIX: prefix });
  const db: Db = await openDb(url, schema !== undefined ? { schema } : {});
  await migrate(db);
  const shared: SharedState = await openSharedState(config.redisUrl, { prefix: config.redisPrefix });
  const services = createServices({
    config,
    db,
    encryptionKey: key,
    adminTokenHash: sha256Hex(ADMIN_TOKEN),
    clock,
    shared,
  });
  const app = await buildApp(services);
  return {
    app,
    close: async () => {
      await app.close();
      await shared.close();
      await db.close();
    },
  };
}

const redisUp = await redisUnderTest('shared rate-limit tests');

for (const store of await storesUnderTest()) {
  await describe(`messaging: rate limits shared by two instances through Redis [${store}]`, () => {
    const sharedClock = new FakeClock(Date.now());
    const encryptionKey = randomBytes(32);
    const file = join(tmpdir(), `op-shared-${randomBytes(6).toString('hex')}.db`);
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const url = store === 'sqlite' ? `sqlite:${file}` : PG_URL;
    // The two instances' buckets and messages, apart from every other suite's on this Redis.
    const prefix = redisTestPrefix();
    let one: Instance | undefined;
    let two: Instance | undefined;
    before(async () => {
      if (!redisUp) return;
      one = await startInstance(url, store === 'postgres' ? schema : undefined, encryptionKey, sharedClock, prefix);
      two = await startInstance(url, store === 'postgres' ? schema : undefined, encryptionKey, sharedClock, prefix);
    });
    after(async () => {
      await one?.close();
      await two?.close();
      if (store === 'sqlite') for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
      else if (redisUp) await dropSchema(schema);
    });

    it(
      'a private chat burst taken on one instance is exhausted on the other',
      { skip: !redisUp && 'Redis unreachable' },
      async () => {
        if (one === undefined || two === undefined) throw new Error('instances not started');
        const [owner, a] = (await createUsers(one.app, 2)) as [TestUser, TestUser];
        const bot = await createBot(one.app, owner.user_id);
        const dm = { to_user_id: a.user_id, object_name: 'text', content: 'hi' };
        const headers = { 'x-api-key': bot.api_key };
        for (let i = 0; i < 5; i++) {
          const r = await inject(i % 2 === 0 ? one.app : two.app, PRIVATE_SEND, dm, headers);
          assert.equal(r.status, 200, `#${i} ${JSON.stringify(r.body)}`);
        }
        for (const instance of [one, two]) {
          const r = await inject(instance.app, PRIVATE_SEND, dm, headers);
          assert.equal(r.status, 429);
          assert.deepEqual(r.body, TOO_MANY);
          assert.equal(r.headers['retry-after'], '1');
        }
        sharedClock.advance(1000);
        assert.equal((await inject(two.app, PRIVATE_SEND, dm, headers)).status, 200);
        assert.equal((await inject(one.app, PRIVATE_SEND, dm, headers)).status, 429);
        assert.equal((await outboxSince(one.app, '0')).messages.length, 6);
      },
    );

    it(
      'a send the bot’s overall bucket refuses spends none of its chat’s, in Redis too',
      { skip: !redisUp && 'Redis unreachable' },
      async () => {
        if (one === undefined || two === undefined) throw new Error('instances not started');
        const [first, second] = [one.app, two.app];
        const [owner, c, ...others] = (await createUsers(one.app, 8)) as [TestUser, TestUser, ...TestUser[]];
        const bot = await createBot(one.app, owner.user_id);
        const headers = { 'x-api-key': bot.api_key };
        let turn = 0;
        /** A send to `to` on each instance in turn: its status and the refusing bucket's policy. */
        const send = async (to: TestUser): Promise<unknown[]> => {
          const r = await inject(
            turn++ % 2 === 0 ? first : second,
            PRIVATE_SEND,
            { to_user_id: to.user_id, object_name: 'text', content: 'hi' },
            headers,
          );
          return [r.status, r.headers['ratelimit-policy']];
        };
        // Six chats of five take the bot's 30 of this second.
        for (const u of others.slice(0, 6))
          for (let i = 0; i < 5; i++) assert.deepEqual(await send(u), [200, undefined]);
        for (let i = 0; i < 4; i++) assert.deepEqual(await send(c), [429, '"send";q=30;w=1'], `#${i}`);
        sharedClock.advance(1000);
        for (let i = 0; i < 5; i++) assert.deepEqual(await send(c), [200, undefined], `C kept its five, #${i}`);
        assert.deepEqual(await send(c), [429, '"chat";q=5;w=5']);
      },
    );
  });
}
