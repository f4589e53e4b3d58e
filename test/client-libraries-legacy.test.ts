// decisions.md section 7, the older key-only paths and the read endpoints: requests exactly as older
// scripts and dashboards send them (X-API-KEY only, JSON bodies with extra href, from_user_id and
// title; group/info?gid=..., user/info?address=0x..., share links with &code=<inviter>), checked on
// the answer and on the operator's outbox.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { App } from '../src/http/types.js';
import type { OutboxMessageView } from '../src/modules/outbox/service.js';
import { describeStores } from './helpers/app.js';
import {
  applyEvents,
  createApp,
  createBot,
  createUsers,
  signedHeaders,
  uid,
  wallet,
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
  paramError,
  PRIVATE_SEND,
  UNKNOWN_GROUP,
  watchOutbox,
} from './helpers/outbox.js';
import { link, tag } from './helpers/richtext.js';

const UNKNOWN_USER = { error: 'Not Found', code: 404, message: 'unknown user' };

const RICH = `Hi ${link('docs', 'https://docs.example/x')} ${tag({
  uitag: 'font',
  text: 'red',
  bold: 'true',
  color: '#f00',
})}`;
const HTTP_LINK = link('x', 'http://docs.example/');

interface Answer {
  status: number;
  body: unknown;
  headers: Record<string, unknown>;
}

type Row = Omit<OutboxMessageView, 'id' | 'created_at' | 'from_user_id'>;

async function post(app: App, url: string, headers: Record<string, string>, payload: object): Promise<Answer> {
  const res = await app.inject({
    method: 'POST',
    url,
    headers: { ...headers, 'content-type': 'application/json' },
    payload: JSON.stringify(payload),
  });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

async function get(app: App, path: string, query: Record<string, string | number>, headers: Record<string, string>) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const res = await app.inject({ method: 'GET', url: `${path}?${qs}`, headers });
  return { status: res.statusCode, body: res.json<unknown>(), headers: res.headers };
}

/** The operator's outbox since the last call, without the generated id, sender and time. */
async function outboxWatcher(app: App) {
  const w = await watchOutbox(app);
  return {
    added: async (): Promise<Row[]> =>
      (await w.added()).map(({ id: _id, created_at: _at, from_user_id: _from, ...rest }) => rest),
  };
}

await describeStores('client libraries: older key-only message bodies', (t) => {
  let a: TestUser;
  let b: TestUser;
  let energizer: TestUser;
  let bot: BotCreds;
  let weakBot: BotCreds;
  const group = uid('g');
  const keyOnly = (c: Creds) => ({ 'x-api-key': c.api_key });

  const accepted = (r: Answer, what: string) => {
    assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.body)}`);
    assert.deepEqual(r.body, ACCEPTED, what);
  };
  /** A key-only RCD:Graphic body to b. */
  const graphicToB = (fields: Record<string, unknown>) => ({
    to_user_id: b.user_id,
    object_name: 'RCD:Graphic',
    ...fields,
  });
  const refused = (r: Answer, status: number, body: unknown, what: string) => {
    assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
    assert.deepEqual(r.body, body, what);
  };
  const groupRow = (o: Partial<Row> & Pick<Row, 'object_name' | 'content'>): Row => ({
    chat_type: 'group',
    group_id: group,
    mention_user_ids: [],
    ...o,
  });
  const privateRow = (to: string, o: Partial<Row> & Pick<Row, 'object_name' | 'content'>): Row => ({
    chat_type: 'private',
    to_user_id: to,
    mention_user_ids: [],
    ...o,
  });

  it('builds users, bots and a group through events', async () => {
    const [owner] = (await createUsers(t().app, 1)) as [TestUser];
    [a, b] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
    [energizer] = (await createUsers(t().app, 1, { level: 5 })) as [TestUser];
    bot = await createBot(t().app, owner.user_id, 'echo bot');
    weakBot = await createBot(t().app, owner.user_id, 'level one bot');
    await applyEvents(t().app, [
      {
        type: 'group.upserted',
        data: { group_id: group, name: 'Old scripts', invite_url: `https://m.example/g/${group}` },
      },
      { type: 'group.member.joined', data: { group_id: group, user_id: bot.bot_user_id } },
      { type: 'group.member.joined', data: { group_id: group, user_id: a.user_id } },
    ]);
  });

  it('RC:TxtMsg and RCD:Graphic group sends ignore the fields they do not use', async () => {
    const w = await outboxWatcher(t().app);
    for (const path of [OLD_GROUP_SEND, GROUP_SEND]) {
      accepted(
        await post(t().app, path, keyOnly(bot), {
          group_id: group,
          to_user_id: a.user_id,
          object_name: 'RC:TxtMsg',
          message: `hello from ${path}`,
          href: 'https://old.example/page',
          from_user_id: bot.bot_user_id,
          title: 't'.repeat(300),
          content: ['not', 'used'],
          extra: { nested: true },
        }),
        `${path} RC:TxtMsg`,
      );
      accepted(
        await post(t().app, path, keyOnly(bot), {
          group_id: group,
          // "may be empty" (seed-api.md): as text, or as JSON's null.
          to_user_id: path === GROUP_SEND ? null : '',
          object_name: 'RCD:Graphic',
          title: 'Weekly',
          content: RICH,
          message: 42,
          href: '',
          from_user_id: 'someone-else',
        }),
        `${path} RCD:Graphic`,
      );
    }
    assert.deepEqual(
      await w.added(),
      [OLD_GROUP_SEND, GROUP_SEND].flatMap((path) => [
        groupRow({ object_name: 'RC:TxtMsg', content: `hello from ${path}`, mention_user_ids: [a.user_id] }),
        groupRow({ object_name: 'RCD:Graphic', title: 'Weekly', content: RICH }),
      ]),
      'stored as sent, the unused fields (title of RC:TxtMsg included) dropped',
    );
  });

  it('RCD:Command private sends ignore the fields they do not use', async () => {
    const w = await outboxWatcher(t().app);
    for (const path of [OLD_PRIVATE_SEND, PRIVATE_SEND]) {
      accepted(
        await post(t().app, path, keyOnly(bot), {
          to_user_id: b.user_id,
          object_name: 'RCD:Command',
          message: '/start',
          href: 'https://old.example/cmd',
          from_user_id: bot.bot_user_id,
          title: 'ignored',
          group_id: group,
          content: null,
        }),
        `${path} RCD:Command`,
      );
    }
    assert.deepEqual(await w.added(), [
      privateRow(b.user_id, { object_name: 'RCD:Command', content: '/start' }),
      privateRow(b.user_id, { object_name: 'RCD:Command', content: '/start' }),
    ]);
  });

  it('the fields a type uses are still checked, with the same Param error; text and richtext stay strict', async () => {
    const long = 'x'.repeat(5001);
    const base = { group_id: group, href: 'https://old.example/', from_user_id: 'x' };
    const cases: [string, string, object, string][] = [
      [
        'RC:TxtMsg empty message',
        OLD_GROUP_SEND,
        { ...base, object_name: 'RC:TxtMsg', message: '' },
        'body.message: required, not empty, for RC:TxtMsg',
      ],
      [
        'RC:TxtMsg content only',
        OLD_GROUP_SEND,
        { ...base, object_name: 'RC:TxtMsg', content: 'x' },
        'body.message: required, not empty, for RC:TxtMsg',
      ],
      [
        'RC:TxtMsg message 5001',
        GROUP_SEND,
        { ...base, object_name: 'RC:TxtMsg', message: long },
        'body.message: must NOT have more than 5000 characters',
      ],
      [
        'RC:TxtMsg message number',
        OLD_GROUP_SEND,
        { ...base, object_name: 'RC:TxtMsg', message: 7 },
        'body.message: must be string',
      ],
      [
        'RC:TxtMsg to_user_id number',
        OLD_GROUP_SEND,
        { ...base, object_name: 'RC:TxtMsg', message: 'x', to_user_id: 7 },
        'body.to_user_id: must be string',
      ],
      [
        'RC:TxtMsg without group_id',
        OLD_GROUP_SEND,
        { object_name: 'RC:TxtMsg', message: 'x', href: '' },
        'body.group_id: required',
      ],
      [
        'RCD:Graphic title 257',
        OLD_GROUP_SEND,
        { ...base, object_name: 'RCD:Graphic', title: 't'.repeat(257), content: 'x' },
        'body.title: must NOT have more than 256 characters',
      ],
      [
        'RCD:Graphic without title',
        OLD_GROUP_SEND,
        { ...base, object_name: 'RCD:Graphic', content: 'x', message: 'x' },
        'body.title: required, not empty, for RCD:Graphic',
      ],
      [
        'RCD:Graphic content object',
        GROUP_SEND,
        { ...base, object_name: 'RCD:Graphic', title: 'T', content: {} },
        'body.content: must be string',
      ],
      [
        'RCD:Graphic http link',
        OLD_GROUP_SEND,
        { ...base, object_name: 'RCD:Graphic', title: 'T', content: HTTP_LINK },
        'content: tag 1 (a): href must start with https://',
      ],
      [
        'RCD:Command empty message',
        OLD_PRIVATE_SEND,
        { to_user_id: b.user_id, object_name: 'RCD:Command', message: '', href: '' },
        'body.message: required, not empty, for RCD:Command',
      ],
      [
        'RCD:Command message 5001',
        OLD_PRIVATE_SEND,
        { to_user_id: b.user_id, object_name: 'RCD:Command', message: long, title: 'x' },
        'body.message: must NOT have more than 5000 characters',
      ],
      [
        'signed text with href',
        GROUP_SEND,
        { group_id: group, object_name: 'text', content: 'x', href: 'https://x.example/' },
        'body.href: unknown field',
      ],
      [
        'signed richtext with from_user_id',
        PRIVATE_SEND,
        { to_user_id: b.user_id, object_name: 'richtext', content: 'x', from_user_id: 'x' },
        'body.from_user_id: unknown field',
      ],
    ];
    const w = await outboxWatcher(t().app);
    for (const [name, path, body, detail] of cases) {
      refused(await post(t().app, path, keyOnly(bot), body), 401, paramError(detail), name);
    }
    assert.deepEqual(await w.added(), [], 'nothing stored');
  });

  it('send_robot_message takes RCD:Graphic: a title and rich content, checked as richtext', async () => {
    const w = await outboxWatcher(t().app);
    accepted(
      await post(
        t().app,
        OLD_PRIVATE_SEND,
        keyOnly(bot),
        graphicToB({ title: 'Echo', content: RICH, href: 'https://old.example/', from_user_id: bot.bot_user_id }),
      ),
      'key-only echo',
    );
    accepted(
      await post(t().app, OLD_PRIVATE_SEND, keyOnly(bot), graphicToB({ content: 'no title' })),
      'a private rich message needs no title, as private richtext',
    );
    accepted(
      await post(t().app, PRIVATE_SEND, signedHeaders(bot), graphicToB({ title: 'Signed', content: RICH })),
      'the signed private path too',
    );
    assert.deepEqual(await w.added(), [
      privateRow(b.user_id, { object_name: 'RCD:Graphic', title: 'Echo', content: RICH }),
      privateRow(b.user_id, { object_name: 'RCD:Graphic', content: 'no title' }),
      privateRow(b.user_id, { object_name: 'RCD:Graphic', title: 'Signed', content: RICH }),
    ]);
    const bad: [string, Record<string, unknown>, string][] = [
      ['http link', { title: 'T', content: HTTP_LINK }, 'content: tag 1 (a): href must start with https://'],
      [
        'unknown uitag',
        { title: 'T', content: tag({ uitag: 'video', src: 'https://v.example/' }) },
        'content: tag 1: unknown uitag "video"',
      ],
      ['empty content', { title: 'T', content: '' }, 'body.content: required, not empty, for RCD:Graphic'],
      ['title 257', { title: 't'.repeat(257), content: 'x' }, 'body.title: must NOT have more than 256 characters'],
    ];
    for (const [name, fields, detail] of bad) {
      refused(await post(t().app, OLD_PRIVATE_SEND, keyOnly(bot), graphicToB(fields)), 401, paramError(detail), name);
    }
    refused(
      await post(t().app, OLD_PRIVATE_SEND, keyOnly(bot), {
        to_user_id: b.user_id,
        object_name: 'RC:TxtMsg',
        message: 'x',
      }),
      401,
      paramError('body.object_name: must be one of RCD:Command'),
      'the refusal names the types it always named',
    );
    assert.deepEqual(await w.added(), [], 'nothing stored');
  });

  it('a private RCD:Graphic with an image needs level 2, as richtext does', async () => {
    const w = await outboxWatcher(t().app);
    for (const [path, objectName] of [
      [OLD_PRIVATE_SEND, 'RCD:Graphic'],
      [PRIVATE_SEND, 'richtext'],
    ] as const) {
      refused(
        await post(t().app, path, keyOnly(weakBot), {
          to_user_id: b.user_id,
          object_name: objectName,
          title: 'Pic',
          content: IMG,
        }),
        403,
        IMAGE_LEVEL,
        `${objectName} from a level 1 bot`,
      );
    }
    await applyEvents(t().app, [
      { type: 'bot.energized', data: { bot_user_id: weakBot.bot_user_id, by_user_id: energizer.user_id } },
    ]);
    accepted(
      await post(t().app, OLD_PRIVATE_SEND, keyOnly(weakBot), graphicToB({ title: 'Pic', content: IMG })),
      'level 2',
    );
    assert.deepEqual(await w.added(), [
      privateRow(b.user_id, { object_name: 'RCD:Graphic', title: 'Pic', content: IMG }),
    ]);
  });
});

await describeStores('client libraries: groups by id and share link, users by wallet', (t) => {
  let creds: Creds;
  let a: TestUser;
  let b: TestUser;
  let inviter: TestUser;
  // A group whose share link carries no id, and one whose link names it by `id`, as the application's do.
  const plain = { group_id: uid('g'), invite_url: `https://m.example/group/${uid('inv')}` };
  const shared = uid('g');
  const sharedUrl = `https://m.example/share/group?id=${shared}`;
  const keyOnly = () => ({ 'x-api-key': creds.api_key });
  const modes = [
    ['key-only', keyOnly],
    ['signed', () => signedHeaders(creds)],
  ] as const;
  const call = (path: string, query: Record<string, string | number>, headers: Record<string, string> = keyOnly()) =>
    get(t().app, path, query, headers);
  const data = async (
    path: string,
    query: Record<string, string | number>,
    code: 1 | 200,
    headers: Record<string, string> = keyOnly(),
  ) => {
    const r = await call(path, query, headers);
    assert.equal(r.status, 200, `${path} ${JSON.stringify(query)}: ${JSON.stringify(r.body)}`);
    const body = r.body as { code: number; data: unknown; message: string; success: boolean };
    assert.deepEqual({ ...body, data: null }, { code, data: null, message: 'success', success: true }, path);
    return body.data;
  };
  const refused = async (path: string, query: Record<string, string | number>, status: number, body: unknown) => {
    const r = await call(path, query);
    assert.equal(r.status, status, `${path} ${JSON.stringify(query)}: ${JSON.stringify(r.body)}`);
    assert.deepEqual(r.body, body, `${path} ${JSON.stringify(query)}`);
  };

  it('builds users and two groups with members, votes, draws and boxes', async () => {
    [a, b, inviter] = (await createUsers(t().app, 3)) as [TestUser, TestUser, TestUser];
    creds = await createApp(t().app, a.user_id);
    const draw = uid('d');
    const box = uid('b');
    await applyEvents(t().app, [
      { type: 'group.upserted', data: { ...plain, name: 'Plain', maximum: 50 } },
      { type: 'group.upserted', data: { group_id: shared, name: 'Shared', invite_url: sharedUrl, maximum: 9 } },
      { type: 'group.member.joined', data: { group_id: plain.group_id, user_id: a.user_id } },
      { type: 'group.member.joined', data: { group_id: shared, user_id: a.user_id, role: 'moderator' } },
      { type: 'group.member.joined', data: { group_id: shared, user_id: b.user_id } },
      { type: 'vote.cast', data: { vote_id: uid('v'), group_id: shared, user_id: b.user_id } },
      { type: 'lucky_draw.created', data: { draw_id: draw, group_id: shared, initiator_id: a.user_id } },
      { type: 'lucky_draw.won', data: { draw_id: draw, user_id: b.user_id } },
      {
        type: 'lucky_box.sent',
        data: { box_id: box, sender_id: a.user_id, amount: '1.50', count: 2, group_id: shared },
      },
      { type: 'lucky_box.claimed', data: { box_id: box, user_id: b.user_id, amount: '0.75' } },
    ]);
  });

  it('GET group/info and group/is_join take gid in place of the share URL, signed and key-only', async () => {
    for (const [mode, headers] of modes) {
      const byUrl = await data('/openapi/group/info', { group_invite_url: sharedUrl }, 200, headers());
      assert.deepEqual(await data('/openapi/group/info', { gid: shared }, 200, headers()), byUrl, `${mode} by gid`);
      assert.equal((byUrl as { group_name: string }).group_name, 'Shared', mode);
      const plainInfo = (await data('/openapi/group/info', { gid: plain.group_id }, 200, headers())) as {
        group_name: string;
      };
      assert.equal(plainInfo.group_name, 'Plain', `${mode} a group whose link has no id`);
      assert.deepEqual(
        await data('/openapi/group/is_join', { walletAddress: b.wallet_address, gid: shared }, 200, headers()),
        { case3701: true },
        mode,
      );
      assert.deepEqual(
        await data(
          '/openapi/group/is_join',
          { walletAddress: b.wallet_address, gid: plain.group_id, chain_id: 1 },
          200,
          headers(),
        ),
        { case3701: false },
        mode,
      );
    }
    await refused('/openapi/group/info', { gid: 'no-such-group' }, 404, UNKNOWN_GROUP);
    await refused(
      '/openapi/group/is_join',
      { walletAddress: b.wallet_address, gid: 'no-such-group' },
      404,
      UNKNOWN_GROUP,
    );
  });

  it('votes, lucky draws and lucky boxes take gid too', async () => {
    const q = { wallet_address: b.wallet_address, gid: shared };
    assert.deepEqual(await data('/openapi/vote/info', q, 200), { vote_number: 1 });
    assert.deepEqual(await data('/openapi/behavior/lucky_draw', q, 1), {
      initiate_luckDraw_total: 0,
      luckDraw_total: 1,
      luckDraw_win_total: 1,
    });
    assert.deepEqual(await data('/openapi/lucky_box/user/group', q, 1), { receive_luckyBox_number: 1 });
    assert.deepEqual(await data('/openapi/lucky_box/group', { gid: shared }, 200), { sum_amount: 1.5, total_num: 1 });
  });

  it('a share link with an id parameter names the group by it, whatever else the link carries', async () => {
    const links = [
      `${sharedUrl}&code=${inviter.user_id}`,
      `https://m.example/share/group?code=${inviter.user_id}&id=${shared}&lang=en`,
      `https://h5.m.example/#/pages/group/share?id=${shared}&code=${inviter.user_id}`,
    ];
    for (const link of links) {
      assert.equal(
        ((await data('/openapi/group/info', { group_invite_url: link }, 200)) as { group_name: string }).group_name,
        'Shared',
        link,
      );
      assert.deepEqual(await data('/openapi/group/is_join', { walletAddress: b.wallet_address, url: link }, 200), {
        case3701: true,
      });
      const q = { wallet_address: b.wallet_address, chain_id: 1, group_invite_url: link };
      for (const path of ['/openapi/vote/info', '/openapi/behavior/vote']) {
        assert.deepEqual(await data(path, q, 200), { vote_number: 1 }, `${path} ${link}`);
      }
      for (const path of ['/openapi/lucky_draw/info', '/openapi/behavior/lucky_draw']) {
        assert.deepEqual(
          await data(path, q, 1),
          { initiate_luckDraw_total: 0, luckDraw_total: 1, luckDraw_win_total: 1 },
          `${path} ${link}`,
        );
      }
      assert.deepEqual(await data('/openapi/lucky_box/user/group', q, 1), { receive_luckyBox_number: 1 }, link);
      assert.deepEqual(await data('/openapi/lucky_box/group', { group_invite_url: link }, 200), {
        sum_amount: 1.5,
        total_num: 1,
      });
    }
  });

  it('a share link without an id parameter is matched whole, as before', async () => {
    const info = (await data('/openapi/group/info', { group_invite_url: plain.invite_url }, 200)) as {
      group_name: string;
    };
    assert.equal(info.group_name, 'Plain');
    for (const other of [
      `${plain.invite_url}?code=${inviter.user_id}`,
      `https://m.example/share/group?id=no-such-group&code=x`,
      `https://m.example/share/group?gid=${shared}`,
    ]) {
      await refused('/openapi/group/info', { group_invite_url: other }, 404, UNKNOWN_GROUP);
      await refused(
        '/openapi/vote/info',
        { wallet_address: b.wallet_address, group_invite_url: other },
        404,
        UNKNOWN_GROUP,
      );
    }
  });

  it('exactly one of gid and the share URL: neither or both is the usual Param error', async () => {
    const cases: [string, Record<string, string>, string][] = [
      ['/openapi/group/info', {}, 'querystring.group_invite_url: required'],
      [
        '/openapi/group/info',
        { group_invite_url: sharedUrl, gid: shared },
        'querystring: give group_invite_url or gid, not both',
      ],
      ['/openapi/group/is_join', { walletAddress: b.wallet_address }, 'querystring.url: required'],
      [
        '/openapi/group/is_join',
        { walletAddress: b.wallet_address, url: sharedUrl, gid: shared },
        'querystring: give url or gid, not both',
      ],
      ['/openapi/vote/info', { wallet_address: b.wallet_address }, 'querystring.group_invite_url: required'],
      [
        '/openapi/lucky_box/group',
        { group_invite_url: sharedUrl, gid: shared },
        'querystring: give group_invite_url or gid, not both',
      ],
      // Empty text is a field not given (SDKs send unset fields so).
      ['/openapi/group/info', { gid: '' }, 'querystring.group_invite_url: required'],
      ['/openapi/group/info', { group_invite_url: '', url: '', gid: '' }, 'querystring.group_invite_url: required'],
    ];
    for (const [path, query, detail] of cases) await refused(path, query, 401, paramError(detail));
  });

  it('a share link whose own encoding hides U+0000 in its id (id=%00) is an unknown group on both stores', async () => {
    for (const url of [
      'https://m.example/share/group?id=%00',
      'https://h5.example/#/group?id=%00',
      `${sharedUrl}%00`,
    ]) {
      await refused('/openapi/group/info', { group_invite_url: url }, 404, UNKNOWN_GROUP);
      await refused('/openapi/lucky_box/group', { url }, 404, UNKNOWN_GROUP);
    }
  });

  it('every group read takes the share URL as group_invite_url or as url (seed-api.md Conventions)', async () => {
    const wallet = { wallet_address: b.wallet_address };
    const reads: [string, Record<string, string>, 1 | 200, unknown][] = [
      ['/openapi/group/info', {}, 200, await data('/openapi/group/info', { gid: shared }, 200)],
      ['/openapi/group/is_join', { walletAddress: b.wallet_address }, 200, { case3701: true }],
      ['/openapi/vote/info', wallet, 200, { vote_number: 1 }],
      ['/openapi/behavior/vote', wallet, 200, { vote_number: 1 }],
      ['/openapi/lucky_draw/info', wallet, 1, { initiate_luckDraw_total: 0, luckDraw_total: 1, luckDraw_win_total: 1 }],
      [
        '/openapi/behavior/lucky_draw',
        wallet,
        1,
        { initiate_luckDraw_total: 0, luckDraw_total: 1, luckDraw_win_total: 1 },
      ],
      ['/openapi/lucky_box/user/group', wallet, 1, { receive_luckyBox_number: 1 }],
      ['/openapi/lucky_box/group', {}, 200, { sum_amount: 1.5, total_num: 1 }],
    ];
    for (const [path, query, code, answer] of reads) {
      const spellings: Record<string, string>[] = [
        { group_invite_url: sharedUrl },
        { url: sharedUrl },
        { group_invite_url: sharedUrl, url: sharedUrl },
        // An unset spelling sent empty beside the set one, as SDKs do.
        { group_invite_url: sharedUrl, url: '', gid: '' },
        { url: sharedUrl, group_invite_url: '', gid: '' },
        // Two links to one group: what a client appends (`&code=`) does not make them differ.
        { group_invite_url: `${sharedUrl}&code=7`, url: sharedUrl },
      ];
      for (const spelling of spellings) {
        assert.deepEqual(
          await data(path, { ...query, ...spelling }, code),
          answer,
          `${path} ${JSON.stringify(spelling)}`,
        );
      }
      const both = { ...query, group_invite_url: sharedUrl, url: plain.invite_url };
      const [documented, other] =
        path === '/openapi/group/is_join' ? ['url', 'group_invite_url'] : ['group_invite_url', 'url'];
      await refused(path, both, 401, paramError(`querystring.${other}: differs from ${documented}`));
      await refused(
        path,
        { ...query, [other]: sharedUrl, gid: shared },
        401,
        paramError(`querystring: give ${other} or gid, not both`),
      );
    }
  });

  it('GET user/info takes a wallet address (chain_id default 1) in place of user_id, on both paths', async () => {
    const view = { name: b.name, wallet_address: b.wallet_address, avatar: b.avatar, uid: b.user_id };
    for (const [mode, headers] of modes) {
      const r = await call('/openapi/user/info', { address: b.wallet_address }, headers());
      assert.equal(r.status, 200, `${mode}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(r.body, { code: 1, data: view, message: 'success', success: true }, mode);
      assert.equal(r.headers.deprecation, 'true', `${mode}: still announced as deprecated`);
    }
    assert.deepEqual(
      await data('/openapi/user/info', { address: b.wallet_address.toUpperCase().replace('0X', '0x'), chain_id: 1 }, 1),
      view,
    );
    assert.deepEqual(await data('/openapi/authorize/userinfo', { address: b.wallet_address }, 1), view);
    // An SDK sends the field it leaves unset as empty text, beside the one it sets.
    for (const path of ['/openapi/user/info', '/openapi/authorize/userinfo']) {
      assert.deepEqual(await data(path, { user_id: '', address: b.wallet_address, chain_id: 1 }, 1), view, path);
      assert.deepEqual(await data(path, { user_id: b.user_id, address: '' }, 1), view, path);
      // chain_id has a default (1): left empty, it is that default, as when it is left out.
      assert.deepEqual(await data(path, { address: b.wallet_address, chain_id: '' }, 1), view, path);
    }
    const bsc = wallet();
    await applyEvents(t().app, [
      { type: 'user.upserted', data: { user_id: b.user_id, name: b.name, wallet_address: bsc, chain_id: 56 } },
    ]);
    // The profile shows the wallet last given; each chain's address still finds the user.
    const latest = { ...view, wallet_address: bsc };
    assert.deepEqual(await data('/openapi/user/info', { address: bsc, chain_id: 56 }, 1), latest);
    assert.deepEqual(await data('/openapi/user/info', { address: b.wallet_address }, 1), latest);
    await refused('/openapi/user/info', { address: bsc }, 404, UNKNOWN_USER);
  });

  it('an unknown address gets what an unknown user_id gets; neither or both is a Param error', async () => {
    const unknownId = await call('/openapi/user/info', { user_id: 'nobody' });
    const unknownAddress = await call('/openapi/user/info', { address: wallet() });
    assert.deepEqual(
      { status: unknownAddress.status, body: unknownAddress.body },
      { status: unknownId.status, body: unknownId.body },
    );
    assert.deepEqual(unknownAddress.body, UNKNOWN_USER);
    await refused('/openapi/authorize/userinfo', { address: wallet() }, 404, UNKNOWN_USER);
    await refused('/openapi/user/info', { chain_id: 1 }, 401, paramError('querystring.user_id: required'));
    await refused('/openapi/user/info', { user_id: '', address: '' }, 401, paramError('querystring.user_id: required'));
    await refused(
      '/openapi/user/info',
      { user_id: b.user_id, address: b.wallet_address },
      401,
      paramError('querystring: give user_id or address, not both'),
    );
    await refused(
      '/openapi/user/info',
      { address: b.wallet_address, chain_id: 0 },
      401,
      paramError('querystring.chain_id: must be >= 1'),
    );
  });
});
