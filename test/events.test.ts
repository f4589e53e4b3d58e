// operator-api.md "Events": every event type and its refusals, atomicity of a batch, idempotency
// by event id, the answer's shape and the request limits. Statistics are counters, read here
// straight from the store (the read endpoints are not built yet).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { adminHeaders, ADMIN_TOKEN, describeStores, FakeClock } from './helpers/app.js';
import {
  applyEvents,
  createBot,
  createUsers,
  postEvents,
  uid,
  userData,
  wallet,
  type Ev,
} from './helpers/factories.js';

const clock = new FakeClock();

/** The listed fields of a row (missing row: all undefined), to compare with `expected`. */
function subset(row: object | undefined, expected: Record<string, unknown>): Record<string, unknown> {
  const r = (row ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.keys(expected).map((k) => [k, r[k]]));
}
const like = (row: object | undefined, expected: Record<string, unknown>, message?: string): void => {
  assert.deepEqual(subset(row, expected), expected, message);
};

await describeStores(
  'operator events (operator-api.md)',
  (t) => {
    const db = () => t().services.db.k;
    const post = (events: Ev[]) => postEvents(t().app, events);
    const raw = (payload: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
      t().app.inject({ method: 'POST', url: '/internal/v1/events', headers: { ...adminHeaders, ...headers }, payload });

    /** Posts a batch and expects HTTP 200 with this outcome. */
    const outcome = async (events: Ev[], expected: Record<string, unknown>, what?: string): Promise<void> => {
      const r = await post(events);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body, expected, what);
    };
    /** Posts one event and expects it applied. */
    const ok = (type: string, data: Record<string, unknown>): Promise<void> =>
      outcome([{ type, data }], { applied: 1, duplicates: 0, refused: [] }, `${type} ${JSON.stringify(data)}`);
    /** Posts one event and expects it refused for `reason`. */
    const refused = (type: string, data: Record<string, unknown>, reason: string): Promise<void> => {
      const id = uid('evt');
      return outcome(
        [{ id, type, data }],
        { applied: 0, duplicates: 0, refused: [{ id, reason }] },
        `${type} ${reason}`,
      );
    };
    /** Posts a batch and expects 400 invalid_event naming `index`. */
    const invalid = async (events: Ev[], index: number, what = ''): Promise<void> => {
      const r = await post(events);
      assert.equal(r.status, 400, `${what} ${JSON.stringify(r.body)}`);
      assert.deepEqual(Object.keys(r.body).sort(), ['error', 'index', 'message'], what);
      assert.equal(r.body.error, 'invalid_event', what);
      assert.equal(r.body.index, index, what);
      assert.equal(typeof r.body.message, 'string', what);
    };

    const ids = async (n: number, level = 1): Promise<string[]> =>
      (await createUsers(t().app, n, { level })).map((u) => u.user_id);
    const two = async () => (await ids(2)) as [string, string];
    const three = async () => (await ids(3)) as [string, string, string];

    const userRow = (id: string) => db().selectFrom('users').selectAll().where('user_id', '=', id).executeTakeFirst();
    const stats = (id: string) =>
      db().selectFrom('user_stats').selectAll().where('user_id', '=', id).executeTakeFirst();
    const walletsOf = (id: string) =>
      db()
        .selectFrom('wallets')
        .select(['chain_id', 'address', 'user_id'])
        .where('user_id', '=', id)
        .orderBy('chain_id')
        .execute();
    const groupRow = (id: string) =>
      db().selectFrom('groups').selectAll().where('group_id', '=', id).executeTakeFirst();
    const member = (groupId: string, userId: string) =>
      db()
        .selectFrom('group_members')
        .select(['role', 'invited_by'])
        .where('group_id', '=', groupId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
    const groupStats = async (userId: string, groupId: string) =>
      (await db()
        .selectFrom('user_group_stats')
        .select(['votes', 'draws_initiated', 'draws_entered', 'draws_won', 'boxes_received'])
        .where('user_id', '=', userId)
        .where('group_id', '=', groupId)
        .executeTakeFirst()) ?? { votes: 0, draws_initiated: 0, draws_entered: 0, draws_won: 0, boxes_received: 0 };
    const momentRow = (id: string) =>
      db().selectFrom('moments').selectAll().where('moment_id', '=', id).executeTakeFirst();
    const boxRow = (id: string) =>
      db().selectFrom('lucky_boxes').selectAll().where('box_id', '=', id).executeTakeFirst();
    const balance = async (userId: string) => {
      const res = await t().app.inject({
        method: 'GET',
        url: `/internal/v1/users/${userId}/balance`,
        headers: adminHeaders,
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ user_id: string; balance: string }>().balance;
    };
    const processed = (eventIds: string[]) =>
      db().selectFrom('processed_events').select('event_id').where('event_id', 'in', eventIds).execute();

    const inviteUrl = () => `https://chat.example/invite/${uid('i')}`;
    const newGroup = async (fields: Record<string, unknown> = {}): Promise<string> => {
      const groupId = uid('g');
      await applyEvents(t().app, [
        { type: 'group.upserted', data: { group_id: groupId, name: 'a group', invite_url: inviteUrl(), ...fields } },
      ]);
      return groupId;
    };
    const join = (groupId: string, userId: string, extra: Record<string, unknown> = {}) =>
      ok('group.member.joined', { group_id: groupId, user_id: userId, ...extra });

    // ---------------------------------------------------------------- authentication

    it('answers 401 unauthorized without the bearer token or with a wrong one, and applies nothing', async () => {
      const u = userData();
      const payload = { events: [{ id: uid('evt'), type: 'user.upserted', data: { ...u } }] };
      const cases: Record<string, string>[] = [
        {},
        { authorization: 'Bearer wrong-token' },
        { authorization: `Bearer ${ADMIN_TOKEN}x` },
        { authorization: ADMIN_TOKEN },
        { authorization: `Basic ${ADMIN_TOKEN}` },
      ];
      for (const headers of cases) {
        const res = await t().app.inject({ method: 'POST', url: '/internal/v1/events', headers, payload });
        assert.equal(res.statusCode, 401, JSON.stringify(headers));
        const body = res.json<Record<string, unknown>>();
        assert.deepEqual(Object.keys(body).sort(), ['error', 'message']);
        assert.equal(body.error, 'unauthorized');
        assert.equal(typeof body.message, 'string');
      }
      assert.equal(await userRow(u.user_id), undefined);
      const res = await t().app.inject({ method: 'POST', url: '/internal/v1/events', headers: adminHeaders, payload });
      assert.equal(res.statusCode, 200);
      assert.notEqual(await userRow(u.user_id), undefined);
    });

    // ---------------------------------------------------------------- user.upserted

    it('user.upserted creates a user, its wallet on chain 1 and zeroed counters', async () => {
      const u = userData({ level: 3 });
      await ok('user.upserted', { ...u });
      like(await userRow(u.user_id), { ...u, level: 3, is_bot: 0 });
      assert.deepEqual(await walletsOf(u.user_id), [{ chain_id: 1, address: u.wallet_address, user_id: u.user_id }]);
      assert.deepEqual(await stats(u.user_id), {
        user_id: u.user_id,
        followers: 0,
        following: 0,
        likes_received: 0,
        likes_given: 0,
        boxes_sent: 0,
        boxes_sent_cents: 0,
        boxes_received: 0,
        boxes_received_cents: 0,
      });
    });

    it('user.upserted without the optional fields stores empty ones and level 0', async () => {
      const id = uid('u');
      const address = wallet();
      await ok('user.upserted', { user_id: id, name: 'bare', wallet_address: address });
      like(await userRow(id), { name: 'bare', wallet_address: address, avatar: '', level: 0, level_icon: '' });
    });

    it('user.upserted takes any level an integer column holds on both stores (operator-api.md: integer >= 0)', async () => {
      const u = userData({ level: 2_147_483_647 });
      await ok('user.upserted', { ...u });
      like(await userRow(u.user_id), { level: 2_147_483_647 });
    });

    it('user.upserted updates a user and keeps the optional fields it omits', async () => {
      const u = userData({ level: 7 });
      await ok('user.upserted', { ...u });
      await ok('user.upserted', { user_id: u.user_id, name: 'renamed', wallet_address: u.wallet_address });
      like(await userRow(u.user_id), {
        name: 'renamed',
        wallet_address: u.wallet_address,
        avatar: u.avatar,
        level: 7,
        level_icon: u.level_icon,
      });
      await ok('user.upserted', { user_id: u.user_id, name: 'renamed', wallet_address: u.wallet_address, level: 0 });
      like(await userRow(u.user_id), { level: 0, avatar: u.avatar });
      assert.equal(
        (await db().selectFrom('users').select('user_id').where('user_id', '=', u.user_id).execute()).length,
        1,
      );
    });

    it('user.upserted takes an address once per chain (wallet_taken), case-insensitively', async () => {
      const a = userData();
      await ok('user.upserted', { ...a });
      // The same address on another chain belongs to someone else without conflict.
      const b = userData({ wallet_address: a.wallet_address });
      await ok('user.upserted', { ...b, chain_id: 56 });
      assert.deepEqual(await walletsOf(b.user_id), [{ chain_id: 56, address: a.wallet_address, user_id: b.user_id }]);
      // On chain 1 (explicit or by default) it is taken, whatever the letter case.
      const c = userData({ wallet_address: `0x${a.wallet_address.slice(2).toUpperCase()}` });
      await refused('user.upserted', { ...c }, 'wallet_taken');
      await refused('user.upserted', { ...c, chain_id: 1 }, 'wallet_taken');
      await refused(
        'user.upserted',
        { ...userData({ wallet_address: a.wallet_address }), chain_id: 56 },
        'wallet_taken',
      );
      assert.equal(await userRow(c.user_id), undefined);
      // The owner itself may send its own address again.
      await ok('user.upserted', { ...a, name: 'again', wallet_address: c.wallet_address });
      assert.deepEqual(
        (await walletsOf(a.user_id)).map((w) => w.chain_id),
        [1],
      );
    });

    it('user.upserted with a new wallet replaces the old one on that chain, which becomes free', async () => {
      const a = userData();
      const first = a.wallet_address;
      await ok('user.upserted', { ...a });
      const second = wallet();
      await ok('user.upserted', { ...a, wallet_address: second });
      assert.deepEqual(await walletsOf(a.user_id), [{ chain_id: 1, address: second, user_id: a.user_id }]);
      like(await userRow(a.user_id), { wallet_address: second });
      const b = userData({ wallet_address: first });
      await ok('user.upserted', { ...b });
      // A wallet on chain 56 is added beside the chain 1 one.
      const third = wallet();
      await ok('user.upserted', { ...a, wallet_address: third, chain_id: 56 });
      assert.deepEqual(
        (await walletsOf(a.user_id)).map((w) => [w.chain_id, w.address]),
        [
          [1, second],
          [56, third],
        ],
      );
    });

    it('user.upserted with ill-typed or missing fields is malformed', async () => {
      const cases: [string, Record<string, unknown>][] = [
        ['negative level', { ...userData(), level: -1 }],
        ['level beyond an integer column', { ...userData(), level: 2_147_483_648 }],
        ['fractional level', { ...userData(), level: 1.5 }],
        ['level as text', { ...userData(), level: '3' }],
        ['chain_id 0', { ...userData(), chain_id: 0 }],
        ['chain_id as text', { ...userData(), chain_id: '1' }],
        ['missing name', { user_id: uid('u'), wallet_address: wallet() }],
        ['missing wallet', { user_id: uid('u'), name: 'n' }],
        ['empty user_id', { ...userData(), user_id: '' }],
      ];
      for (const [what, data] of cases) await invalid([{ type: 'user.upserted', data }], 0, what);
    });

    // ---------------------------------------------------------------- follows

    it('follow.created and follow.deleted keep followers and following; a repeated follow counts once', async () => {
      const [a, b, c] = await three();
      await ok('follow.created', { follower_id: a, followed_id: b });
      like(await stats(a), { following: 1, followers: 0 });
      like(await stats(b), { following: 0, followers: 1 });
      await ok('follow.created', { follower_id: a, followed_id: b });
      like(await stats(a), { following: 1 });
      like(await stats(b), { followers: 1 });
      await ok('follow.created', { follower_id: c, followed_id: b });
      await ok('follow.created', { follower_id: b, followed_id: a });
      like(await stats(b), { followers: 2, following: 1 });
      like(await stats(a), { followers: 1, following: 1 });
      await ok('follow.deleted', { follower_id: a, followed_id: b });
      like(await stats(a), { following: 0, followers: 1 });
      like(await stats(b), { followers: 1 });
      // Unfollowing again, or someone never followed, changes nothing and never goes below zero.
      await ok('follow.deleted', { follower_id: a, followed_id: b });
      await ok('follow.deleted', { follower_id: a, followed_id: c });
      like(await stats(a), { following: 0, followers: 1 });
      like(await stats(b), { followers: 1 });
      like(await stats(c), { followers: 0, following: 1 });
      const edges = await db()
        .selectFrom('follows')
        .select(['follower_id', 'followed_id'])
        .where('followed_id', 'in', [a, b, c])
        .orderBy('seq')
        .execute();
      assert.deepEqual(edges, [
        { follower_id: c, followed_id: b },
        { follower_id: b, followed_id: a },
      ]);
    });

    it('follow events refuse self_follow and unknown_user', async () => {
      const [a, b] = await two();
      for (const type of ['follow.created', 'follow.deleted']) {
        await refused(type, { follower_id: a, followed_id: a }, 'self_follow');
        await refused(type, { follower_id: a, followed_id: 'nobody' }, 'unknown_user');
        await refused(type, { follower_id: 'nobody', followed_id: b }, 'unknown_user');
      }
      like(await stats(a), { followers: 0, following: 0 });
      like(await stats(b), { followers: 0, following: 0 });
      await invalid([{ type: 'follow.created', data: { follower_id: a } }], 0, 'missing followed_id');
      await invalid([{ type: 'follow.created', data: { follower_id: a, followed_id: 7 } }], 0, 'numeric id');
    });

    // ---------------------------------------------------------------- groups

    it('group.upserted creates a group with defaults for the optional fields', async () => {
      const groupId = uid('g');
      const url = inviteUrl();
      await ok('group.upserted', { group_id: groupId, name: 'Defaults', invite_url: url });
      like(await groupRow(groupId), {
        name: 'Defaults',
        invite_url: url,
        pic: '',
        is_charge: 0,
        subchannel_number: 0,
        maximum: 0,
        created_at: '2026-11-22 12:00:00',
        owner_id: null,
        member_count: 0,
        boxes_sent: 0,
        boxes_sent_cents: 0,
      });
    });

    it('group.upserted stores every field; an update keeps the omitted ones and the counters', async () => {
      const [owner, m] = await two();
      const groupId = uid('g');
      const full = {
        group_id: groupId,
        name: 'Full',
        invite_url: inviteUrl(),
        pic: 'https://img.example/g.png',
        is_charge: true,
        subchannel_number: 3,
        maximum: 50,
        created_at: '2024-02-29 23:59:59',
        owner_id: owner,
      };
      await ok('group.upserted', full);
      await join(groupId, m);
      const expected = { ...full, is_charge: 1, member_count: 1 };
      like(await groupRow(groupId), expected);
      const url = inviteUrl();
      await ok('group.upserted', { group_id: groupId, name: 'Renamed', invite_url: url });
      like(await groupRow(groupId), { ...expected, name: 'Renamed', invite_url: url });
      await ok('group.upserted', { group_id: groupId, name: 'Renamed', invite_url: url, is_charge: false, maximum: 0 });
      like(await groupRow(groupId), { is_charge: 0, maximum: 0, subchannel_number: 3, member_count: 1 });
      // The old URL is free again.
      await ok('group.upserted', { group_id: uid('g'), name: 'Taker', invite_url: full.invite_url });
    });

    it('group.upserted refuses an invite URL of another group (invite_url_taken) and an unknown owner', async () => {
      const url = inviteUrl();
      const first = await newGroup({ invite_url: url });
      const other = uid('g');
      await refused('group.upserted', { group_id: other, name: 'x', invite_url: url }, 'invite_url_taken');
      await refused('group.upserted', { group_id: other, name: 'x', invite_url: `${url}/` }, 'invite_url_taken');
      assert.equal(await groupRow(other), undefined);
      await ok('group.upserted', { group_id: first, name: 'same url again', invite_url: url });
      await refused(
        'group.upserted',
        { group_id: other, name: 'x', invite_url: inviteUrl(), owner_id: 'nobody' },
        'unknown_user',
      );
      assert.equal(await groupRow(other), undefined);
    });

    it('group.upserted with ill-typed fields is malformed', async () => {
      const base = { group_id: uid('g'), name: 'g', invite_url: inviteUrl() };
      const cases: [string, Record<string, unknown>][] = [
        ['created_at format', { ...base, created_at: '2024-01-02T03:04:05Z' }],
        ['created_at no such day', { ...base, created_at: '2026-02-30 12:00:00' }],
        ['created_at not a leap year', { ...base, created_at: '2025-02-29 12:00:00' }],
        ['created_at month 13', { ...base, created_at: '2026-13-01 12:00:00' }],
        ['created_at no such time', { ...base, created_at: '2026-01-01 25:61:99' }],
        ['maximum fractional', { ...base, maximum: 2.5 }],
        ['maximum as text', { ...base, maximum: '10' }],
        ['is_charge as text', { ...base, is_charge: 'yes' }],
        ['missing invite_url', { group_id: uid('g'), name: 'g' }],
      ];
      for (const [what, data] of cases) await invalid([{ type: 'group.upserted', data }], 0, what);
    });

    it('group.member.joined counts a member once; a role change is not a second join', async () => {
      const [a, b] = await two();
      const g = await newGroup();
      await join(g, a);
      like(await groupRow(g), { member_count: 1 });
      assert.deepEqual(await member(g, a), { role: 'member', invited_by: null });
      await join(g, a, { role: 'admin' });
      like(await groupRow(g), { member_count: 1 });
      assert.deepEqual(await member(g, a), { role: 'admin', invited_by: null });
      await join(g, a, { role: 'admin' });
      await join(g, b, { role: 'moderator', invited_by: a });
      like(await groupRow(g), { member_count: 2 });
      assert.deepEqual(await member(g, b), { role: 'moderator', invited_by: a });
    });

    it('group.member.joined refuses a new member of a full group (group_full) but allows role changes', async () => {
      const [a, b, c] = await three();
      const g = await newGroup({ maximum: 2 });
      await join(g, a);
      await join(g, b);
      await refused('group.member.joined', { group_id: g, user_id: c }, 'group_full');
      like(await groupRow(g), { member_count: 2 });
      assert.equal(await member(g, c), undefined);
      await join(g, a, { role: 'moderator' });
      like(await groupRow(g), { member_count: 2 });
      await ok('group.member.left', { group_id: g, user_id: a });
      await join(g, c);
      like(await groupRow(g), { member_count: 2 });
    });

    it('group.member.joined refuses unknown groups, users and inviters', async () => {
      const [a] = await ids(1);
      const g = await newGroup();
      await refused('group.member.joined', { group_id: 'no-group', user_id: a ?? '' }, 'unknown_group');
      await refused('group.member.joined', { group_id: g, user_id: 'nobody' }, 'unknown_user');
      await refused('group.member.joined', { group_id: g, user_id: a ?? '', invited_by: 'nobody' }, 'unknown_user');
      like(await groupRow(g), { member_count: 0 });
      await invalid([{ type: 'group.member.joined', data: { group_id: g, user_id: a, role: 'owner' } }], 0, 'role');
    });

    it('a bot that only accepts invitations from users it follows is refused otherwise (invite_not_allowed)', async () => {
      const [owner, inviter] = await two();
      const bot = await createBot(t().app, owner);
      // A new bot may be invited by everyone.
      const open = await newGroup();
      await join(open, bot.bot_user_id, { invited_by: inviter });
      await db()
        .updateTable('bots')
        .set({ group_invite_policy: 'following' })
        .where('bot_user_id', '=', bot.bot_user_id)
        .execute();
      const g = await newGroup();
      await refused(
        'group.member.joined',
        { group_id: g, user_id: bot.bot_user_id, invited_by: inviter },
        'invite_not_allowed',
      );
      await refused('group.member.joined', { group_id: g, user_id: bot.bot_user_id }, 'invite_not_allowed');
      // The inviter following the bot is not enough: the bot must follow the inviter.
      await ok('follow.created', { follower_id: inviter, followed_id: bot.bot_user_id });
      await refused(
        'group.member.joined',
        { group_id: g, user_id: bot.bot_user_id, invited_by: inviter },
        'invite_not_allowed',
      );
      like(await groupRow(g), { member_count: 0 });
      await ok('follow.created', { follower_id: bot.bot_user_id, followed_id: inviter });
      await join(g, bot.bot_user_id, { invited_by: inviter });
      like(await groupRow(g), { member_count: 1 });
      // People are not bots: the setting does not concern them.
      await join(g, owner, { invited_by: inviter });
    });

    it('group.member.left decrements the count; leaving twice or without having joined is harmless', async () => {
      const [a, b, c] = await three();
      const g = await newGroup();
      await join(g, a);
      await join(g, b);
      await ok('group.member.left', { group_id: g, user_id: a });
      like(await groupRow(g), { member_count: 1 });
      assert.equal(await member(g, a), undefined);
      await ok('group.member.left', { group_id: g, user_id: a });
      await ok('group.member.left', { group_id: g, user_id: c });
      like(await groupRow(g), { member_count: 1 });
      await join(g, a);
      like(await groupRow(g), { member_count: 2 });
      await refused('group.member.left', { group_id: 'no-group', user_id: a }, 'unknown_group');
      await refused('group.member.left', { group_id: g, user_id: 'nobody' }, 'unknown_user');
      like(await groupRow(g), { member_count: 2 });
    });

    // ---------------------------------------------------------------- moments

    it('moment.created records a moment of a known author once', async () => {
      const [a, b] = await two();
      const m = uid('m');
      await ok('moment.created', { moment_id: m, author_id: a });
      like(await momentRow(m), { moment_id: m, author_id: a, like_count: 0 });
      await ok('moment.created', { moment_id: m, author_id: a });
      await refused('moment.created', { moment_id: m, author_id: b }, 'moment_exists');
      like(await momentRow(m), { author_id: a });
      const other = uid('m');
      await refused('moment.created', { moment_id: other, author_id: 'nobody' }, 'unknown_user');
      assert.equal(await momentRow(other), undefined);
    });

    it('moment.liked and moment.unliked: one like per user and moment; the counters follow', async () => {
      const [author, x, y] = await three();
      const m = uid('m');
      await ok('moment.created', { moment_id: m, author_id: author });
      /** `type` by `user` on m; then m's like_count and the author's likes_received are `likes`, and x and y have given what `given` says. */
      const step = async (type: string, user: string, likes: number, given: { x?: number; y?: number }) => {
        await ok(type, { moment_id: m, user_id: user });
        like(await momentRow(m), { like_count: likes });
        like(await stats(author), { likes_received: likes });
        if (given.x !== undefined) like(await stats(x), { likes_given: given.x });
        if (given.y !== undefined) like(await stats(y), { likes_given: given.y });
      };
      await step('moment.liked', x, 1, { x: 1 });
      like(await stats(author), { likes_given: 0 });
      like(await stats(x), { likes_received: 0 });
      await step('moment.liked', x, 1, { x: 1 });
      await step('moment.liked', y, 2, {});
      await step('moment.unliked', x, 1, { x: 0, y: 1 });
      await step('moment.unliked', x, 1, { x: 0 });
      for (const type of ['moment.liked', 'moment.unliked']) {
        await refused(type, { moment_id: 'no-moment', user_id: x }, 'unknown_moment');
        await refused(type, { moment_id: m, user_id: 'nobody' }, 'unknown_user');
      }
      like(await momentRow(m), { like_count: 1 });
    });

    it('one batch creates users, then likes, unlikes and follows with them over several runs: counted as one by one', async () => {
      const [author] = await two();
      const m = uid('m');
      await ok('moment.created', { moment_id: m, author_id: author });
      const [u, v] = [userData(), userData()];
      const likeBy = (type: string, user: string): Ev => ({ type, data: { moment_id: m, user_id: user } });
      const edge = (type: string): Ev => ({ type, data: { follower_id: u.user_id, followed_id: v.user_id } });
      const batch: Ev[] = [
        { type: 'user.upserted', data: { ...u } },
        { type: 'user.upserted', data: { ...v } },
        likeBy('moment.liked', u.user_id),
        { type: 'user.upserted', data: { ...u, name: 'renamed' } },
        likeBy('moment.unliked', u.user_id),
        likeBy('moment.liked', u.user_id),
        likeBy('moment.liked', v.user_id),
        likeBy('moment.liked', u.user_id),
        edge('follow.created'),
        edge('follow.deleted'),
        edge('follow.created'),
      ].map((e) => ({ ...e, id: uid('evt') }));
      await outcome(batch, { applied: 11, duplicates: 0, refused: [] });
      like(await momentRow(m), { like_count: 2 });
      like(await stats(author), { likes_received: 2 });
      like(await stats(u.user_id), { likes_given: 1, following: 1, followers: 0 });
      like(await stats(v.user_id), { likes_given: 1, following: 0, followers: 1 });
      const [first, second] = [await userRow(u.user_id), await userRow(v.user_id)];
      like(first, { name: 'renamed' });
      // Numbered when created, in the batch's order.
      const [n1, n2] = [Number(first?.telegram_id), Number(second?.telegram_id)];
      assert.ok(n1 > 0 && n2 > n1, `telegram ids ${n1}, ${n2}`);
    });

    it('concurrent batches removing the same follow and like count each removal once', async () => {
      const [a, b] = await two();
      const m = uid('m');
      await ok('moment.created', { moment_id: m, author_id: b });
      const follow = { follower_id: a, followed_id: b };
      const likeOfA = { moment_id: m, user_id: a };
      for (let round = 0; round < 10; round++) {
        await outcome(
          [
            { id: uid('evt'), type: 'follow.created', data: follow },
            { id: uid('evt'), type: 'moment.liked', data: likeOfA },
          ],
          { applied: 2, duplicates: 0, refused: [] },
        );
        const removal = () =>
          post([
            { id: uid('evt'), type: 'follow.deleted', data: follow },
            { id: uid('evt'), type: 'moment.unliked', data: likeOfA },
          ]);
        for (const r of await Promise.all([removal(), removal(), removal()])) assert.equal(r.status, 200);
      }
      like(await stats(a), { following: 0, likes_given: 0 });
      like(await stats(b), { followers: 0, likes_received: 0 });
      like(await momentRow(m), { like_count: 0 });
    });

    // ---------------------------------------------------------------- votes and lucky draws

    it('vote.cast counts once per vote and user toward the vote_number in that group', async () => {
      const [a, b] = await two();
      const g = await newGroup();
      const other = await newGroup();
      const [v1, v2] = [uid('v'), uid('v')];
      await ok('vote.cast', { vote_id: v1, group_id: g, user_id: a });
      like(await groupStats(a, g), { votes: 1 });
      await ok('vote.cast', { vote_id: v1, group_id: g, user_id: a });
      like(await groupStats(a, g), { votes: 1 });
      await ok('vote.cast', { vote_id: v2, group_id: g, user_id: a });
      await ok('vote.cast', { vote_id: v1, group_id: g, user_id: b });
      like(await groupStats(a, g), { votes: 2 });
      like(await groupStats(b, g), { votes: 1 });
      await refused('vote.cast', { vote_id: v1, group_id: other, user_id: a }, 'vote_group_mismatch');
      like(await groupStats(a, other), { votes: 0 });
      await refused('vote.cast', { vote_id: uid('v'), group_id: 'no-group', user_id: a }, 'unknown_group');
      await refused('vote.cast', { vote_id: uid('v'), group_id: g, user_id: 'nobody' }, 'unknown_user');
      like(await groupStats(a, g), { votes: 2 });
    });

    it('lucky_draw.created counts for the initiator once; a draw id cannot move', async () => {
      const [a, b] = await two();
      const g = await newGroup();
      const d = uid('d');
      await ok('lucky_draw.created', { draw_id: d, group_id: g, initiator_id: a });
      like(await groupStats(a, g), { draws_initiated: 1 });
      await ok('lucky_draw.created', { draw_id: d, group_id: g, initiator_id: a });
      like(await groupStats(a, g), { draws_initiated: 1 });
      await refused('lucky_draw.created', { draw_id: d, group_id: g, initiator_id: b }, 'draw_exists');
      like(await groupStats(b, g), { draws_initiated: 0 });
      await refused(
        'lucky_draw.created',
        { draw_id: uid('d'), group_id: 'no-group', initiator_id: a },
        'unknown_group',
      );
      await refused('lucky_draw.created', { draw_id: uid('d'), group_id: g, initiator_id: 'nobody' }, 'unknown_user');
    });

    it('lucky_draw.entered and .won count once; a win without an entry counts the entry once', async () => {
      const [a, b, c] = await three();
      const g = await newGroup();
      const d = uid('d');
      await ok('lucky_draw.created', { draw_id: d, group_id: g, initiator_id: a });
      await ok('lucky_draw.entered', { draw_id: d, user_id: b });
      like(await groupStats(b, g), { draws_entered: 1, draws_won: 0 });
      await ok('lucky_draw.entered', { draw_id: d, user_id: b });
      like(await groupStats(b, g), { draws_entered: 1, draws_won: 0 });
      await ok('lucky_draw.won', { draw_id: d, user_id: b });
      like(await groupStats(b, g), { draws_entered: 1, draws_won: 1 });
      await ok('lucky_draw.won', { draw_id: d, user_id: b });
      like(await groupStats(b, g), { draws_entered: 1, draws_won: 1 });
      await ok('lucky_draw.won', { draw_id: d, user_id: c });
      like(await groupStats(c, g), { draws_entered: 1, draws_won: 1 });
      await ok('lucky_draw.entered', { draw_id: d, user_id: c });
      await ok('lucky_draw.won', { draw_id: d, user_id: c });
      like(await groupStats(c, g), { draws_entered: 1, draws_won: 1 });
      like(await groupStats(a, g), { draws_initiated: 1, draws_entered: 0, draws_won: 0 });
      for (const type of ['lucky_draw.entered', 'lucky_draw.won']) {
        await refused(type, { draw_id: 'no-draw', user_id: b }, 'unknown_draw');
        await refused(type, { draw_id: d, user_id: 'nobody' }, 'unknown_user');
      }
      like(await groupStats(b, g), { draws_entered: 1, draws_won: 1 });
    });

    // ---------------------------------------------------------------- lucky boxes

    it('lucky_box.sent records the box in cents and counts for the sender and the group', async () => {
      const [s] = (await ids(1)) as [string];
      const g = await newGroup();
      const box = uid('b');
      await ok('lucky_box.sent', { box_id: box, sender_id: s, amount: '0.3', count: 2, group_id: g });
      like(await boxRow(box), {
        sender_id: s,
        group_id: g,
        amount_cents: 30,
        count: 2,
        claimed_count: 0,
        claimed_cents: 0,
      });
      like(await stats(s), { boxes_sent: 1, boxes_sent_cents: 30 });
      like(await groupRow(g), { boxes_sent: 1, boxes_sent_cents: 30 });
      const plain = uid('b');
      await ok('lucky_box.sent', { box_id: plain, sender_id: s, amount: 12.5, count: 1 });
      like(await boxRow(plain), { group_id: null, amount_cents: 1250 });
      like(await stats(s), { boxes_sent: 2, boxes_sent_cents: 1280 });
      like(await groupRow(g), { boxes_sent: 1, boxes_sent_cents: 30 });
      await refused('lucky_box.sent', { box_id: box, sender_id: s, amount: '1', count: 1 }, 'box_exists');
      await refused('lucky_box.sent', { box_id: uid('b'), sender_id: 'nobody', amount: '1', count: 1 }, 'unknown_user');
      await refused(
        'lucky_box.sent',
        { box_id: uid('b'), sender_id: s, amount: '1', count: 1, group_id: 'no-group' },
        'unknown_group',
      );
      like(await stats(s), { boxes_sent: 2, boxes_sent_cents: 1280 });
    });

    it("lucky_box.claimed sums claims exactly in cents ('0.1' + '0.2' = 0.3)", async () => {
      const [s, a, b] = await three();
      const [c] = (await ids(1)) as [string];
      const g = await newGroup();
      const box = uid('b');
      await ok('lucky_box.sent', { box_id: box, sender_id: s, amount: '0.3', count: 3, group_id: g });
      await ok('lucky_box.claimed', { box_id: box, user_id: a, amount: '0.1' });
      await ok('lucky_box.claimed', { box_id: box, user_id: b, amount: '0.2' });
      like(await boxRow(box), { claimed_count: 2, claimed_cents: 30 });
      like(await stats(a), { boxes_received: 1, boxes_received_cents: 10 });
      like(await stats(b), { boxes_received: 1, boxes_received_cents: 20 });
      like(await groupStats(a, g), { boxes_received: 1 });
      // Nothing is left even though a share is: the amount is exhausted.
      await refused('lucky_box.claimed', { box_id: box, user_id: c, amount: '0.01' }, 'amount_exceeds_box');
      like(await boxRow(box), { claimed_count: 2, claimed_cents: 30 });
      like(await stats(c), { boxes_received: 0, boxes_received_cents: 0 });
    });

    it('lucky_box.claimed refuses box_empty, amount_exceeds_box, already_claimed, unknown_box, unknown_user', async () => {
      const [s, a, b] = await three();
      const [c] = (await ids(1)) as [string];
      const box = uid('b');
      await ok('lucky_box.sent', { box_id: box, sender_id: s, amount: '1', count: 2 });
      await refused('lucky_box.claimed', { box_id: box, user_id: a, amount: '1.01' }, 'amount_exceeds_box');
      await ok('lucky_box.claimed', { box_id: box, user_id: a, amount: 0.5 });
      await refused('lucky_box.claimed', { box_id: box, user_id: a, amount: '0.1' }, 'already_claimed');
      await refused('lucky_box.claimed', { box_id: box, user_id: b, amount: '0.51' }, 'amount_exceeds_box');
      await ok('lucky_box.claimed', { box_id: box, user_id: b, amount: '0.2' });
      await refused('lucky_box.claimed', { box_id: box, user_id: c, amount: '0.1' }, 'box_empty');
      await refused('lucky_box.claimed', { box_id: 'no-box', user_id: c, amount: '0.1' }, 'unknown_box');
      await refused('lucky_box.claimed', { box_id: box, user_id: 'nobody', amount: '0.1' }, 'unknown_user');
      like(await boxRow(box), { claimed_count: 2, claimed_cents: 70 });
      like(await stats(a), { boxes_received: 1, boxes_received_cents: 50 });
      like(await stats(b), { boxes_received: 1, boxes_received_cents: 20 });
      like(await stats(c), { boxes_received: 0, boxes_received_cents: 0 });
      // A box outside any group counts in no group.
      const perGroup = await db().selectFrom('user_group_stats').select('group_id').where('user_id', '=', a).execute();
      assert.deepEqual(perGroup, []);
    });

    it("lucky_box amounts of '0' or with more than two decimals are refused or malformed", async () => {
      const [s, a] = await two();
      const box = uid('b');
      await refused('lucky_box.sent', { box_id: box, sender_id: s, amount: '0', count: 1 }, 'invalid_amount');
      await refused('lucky_box.sent', { box_id: box, sender_id: s, amount: 0, count: 1 }, 'invalid_amount');
      await refused('lucky_box.sent', { box_id: box, sender_id: s, amount: 1.234, count: 1 }, 'invalid_amount');
      assert.equal(await boxRow(box), undefined);
      await ok('lucky_box.sent', { box_id: box, sender_id: s, amount: '5', count: 1 });
      await refused('lucky_box.claimed', { box_id: box, user_id: a, amount: '0' }, 'invalid_amount');
      await refused('lucky_box.claimed', { box_id: box, user_id: a, amount: 1.234 }, 'invalid_amount');
      like(await boxRow(box), { claimed_count: 0, claimed_cents: 0 });
      like(await stats(s), { boxes_sent: 1, boxes_sent_cents: 500 });
      const cases: [string, Record<string, unknown>][] = [
        ['three decimals as text', { box_id: uid('b'), sender_id: s, amount: '1.234', count: 1 }],
        ['negative', { box_id: uid('b'), sender_id: s, amount: -1, count: 1 }],
        ['count 0', { box_id: uid('b'), sender_id: s, amount: '1', count: 0 }],
        ['fractional count', { box_id: uid('b'), sender_id: s, amount: '1', count: 1.5 }],
        ['missing count', { box_id: uid('b'), sender_id: s, amount: '1' }],
      ];
      for (const [what, data] of cases) await invalid([{ type: 'lucky_box.sent', data }], 0, what);
      await invalid([{ type: 'lucky_box.claimed', data: { box_id: box, user_id: a, amount: 'one' } }], 0, 'text');
    });

    // ---------------------------------------------------------------- points

    it('points.credited adds to the balance exactly, in hundredths', async () => {
      const [a] = (await ids(1)) as [string];
      assert.equal(await balance(a), '0');
      await ok('points.credited', { user_id: a, amount: '12.5' });
      assert.equal(await balance(a), '12.5');
      await ok('points.credited', { user_id: a, amount: 0.1 });
      await ok('points.credited', { user_id: a, amount: '0.2' });
      assert.equal(await balance(a), '12.8');
      await refused('points.credited', { user_id: a, amount: '0' }, 'invalid_amount');
      await refused('points.credited', { user_id: a, amount: 1.234 }, 'invalid_amount');
      await refused('points.credited', { user_id: 'nobody', amount: '1' }, 'unknown_user');
      assert.equal(await balance(a), '12.8');
      await invalid([{ type: 'points.credited', data: { user_id: a, amount: '1.001' } }], 0, 'three decimals');
    });

    // ---------------------------------------------------------------- bots

    it('bot.energized raises a bot by one level when the user is Lv.5 or higher', async () => {
      const [owner] = (await ids(1)) as [string];
      const [lv5] = (await ids(1, 5)) as [string];
      const [lv4] = (await ids(1, 4)) as [string];
      const bot = await createBot(t().app, owner);
      like(await userRow(bot.bot_user_id), { level: 1, is_bot: 1 });
      await ok('bot.energized', { bot_user_id: bot.bot_user_id, by_user_id: lv5 });
      like(await userRow(bot.bot_user_id), { level: 2 });
      await ok('bot.energized', { bot_user_id: bot.bot_user_id, by_user_id: lv5 });
      like(await userRow(bot.bot_user_id), { level: 3 });
      await refused('bot.energized', { bot_user_id: bot.bot_user_id, by_user_id: lv4 }, 'level_too_low');
      await refused('bot.energized', { bot_user_id: lv4, by_user_id: lv5 }, 'not_a_bot');
      await refused('bot.energized', { bot_user_id: 'no-bot', by_user_id: lv5 }, 'unknown_user');
      await refused('bot.energized', { bot_user_id: bot.bot_user_id, by_user_id: 'nobody' }, 'unknown_user');
      like(await userRow(bot.bot_user_id), { level: 3 });
      like(await userRow(lv4), { level: 4 });
    });

    it('bot.energized of a bot at the largest level the store holds is refused (level_at_maximum), never a 500', async () => {
      const [owner] = (await ids(1)) as [string];
      const [lv5] = (await ids(1, 5)) as [string];
      const bot = await createBot(t().app, owner);
      const top = 2_147_483_647;
      await db().updateTable('users').set({ level: top }).where('user_id', '=', bot.bot_user_id).execute();
      await refused('bot.energized', { bot_user_id: bot.bot_user_id, by_user_id: lv5 }, 'level_at_maximum');
      like(await userRow(bot.bot_user_id), { level: top });
    });

    // ---------------------------------------------------------------- messages and buttons

    it('message.created records group and private messages', async () => {
      const [a, b, c] = await three();
      const g = await newGroup();
      const chat = (id: string) =>
        db().selectFrom('chat_messages').selectAll().where('message_id', '=', id).executeTakeFirst();
      const m1 = uid('m');
      const hello = { chat_type: 'group', from_user_id: a, group_id: g, kind: 'text', text: 'hello @b' };
      await ok('message.created', { message_id: m1, ...hello, mention_user_ids: [b] });
      like(await chat(m1), { ...hello, to_user_id: null });
      assert.deepEqual(JSON.parse((await chat(m1))?.mention_user_ids ?? 'null'), [b]);
      const m2 = uid('m');
      await ok('message.created', {
        message_id: m2,
        chat_type: 'private',
        from_user_id: a,
        to_user_id: c,
        kind: 'command',
        text: '/start',
      });
      like(await chat(m2), { chat_type: 'private', group_id: null, to_user_id: c, kind: 'command', text: '/start' });
      assert.deepEqual(JSON.parse((await chat(m2))?.mention_user_ids ?? 'null'), []);
      const m3 = uid('m');
      await ok('message.created', { message_id: m3, chat_type: 'group', from_user_id: b, group_id: g, kind: 'image' });
      like(await chat(m3), { kind: 'image', text: '' });

      const group = { chat_type: 'group', from_user_id: a, group_id: g, kind: 'text', text: 'x' };
      await refused('message.created', { ...group, message_id: uid('m'), group_id: 'no-group' }, 'unknown_group');
      await refused('message.created', { ...group, message_id: uid('m'), from_user_id: 'nobody' }, 'unknown_user');
      await refused(
        'message.created',
        { ...group, message_id: uid('m'), mention_user_ids: ['nobody'] },
        'unknown_user',
      );
      await refused(
        'message.created',
        { message_id: uid('m'), chat_type: 'private', from_user_id: a, to_user_id: 'nobody', kind: 'text' },
        'unknown_user',
      );
      await refused('message.created', { ...group, message_id: m1 }, 'duplicate_message');
      like(await chat(m1), { text: 'hello @b' });
    });

    it('message.created without the group_id of a group message (or to_user_id of a private one) is malformed', async () => {
      const [a, b] = await two();
      const u = userData();
      await invalid(
        [
          { type: 'user.upserted', data: { ...u } },
          {
            type: 'message.created',
            data: { message_id: uid('m'), chat_type: 'group', from_user_id: a, kind: 'text' },
          },
        ],
        1,
        'group without group_id',
      );
      assert.equal(await userRow(u.user_id), undefined);
      const cases: [string, Record<string, unknown>][] = [
        ['private without to_user_id', { message_id: uid('m'), chat_type: 'private', from_user_id: a, kind: 'text' }],
        [
          'unknown chat_type',
          { message_id: uid('m'), chat_type: 'channel', from_user_id: a, to_user_id: b, kind: 'text' },
        ],
        ['missing kind', { message_id: uid('m'), chat_type: 'private', from_user_id: a, to_user_id: b }],
        [
          'mentions not an array',
          {
            message_id: uid('m'),
            chat_type: 'private',
            from_user_id: a,
            to_user_id: b,
            kind: 'text',
            mention_user_ids: b,
          },
        ],
      ];
      for (const [what, data] of cases) await invalid([{ type: 'message.created', data }], 0, what);
    });

    it('button.clicked names an outbox message (unknown_message otherwise)', async () => {
      const [owner, a] = await two();
      const bot = await createBot(t().app, owner);
      const click = { callback_id: uid('cb'), user_id: a, data: 'yes' };
      await refused('button.clicked', { ...click, message_id: 'no-message' }, 'unknown_message');
      const messageId = uid('om');
      await db()
        .insertInto('outbox_messages')
        .values({
          message_id: messageId,
          chat_type: 'private',
          group_id: null,
          to_user_id: a,
          from_user_id: bot.bot_user_id,
          app_id: bot.app_id,
          object_name: 'text',
          title: null,
          content: 'pick one',
          normalized: null,
          mention_user_ids: '[]',
          reply_markup: JSON.stringify({ inline_keyboard: [[{ text: 'Yes', callback_data: 'yes' }]] }),
          created_at: clock.now(),
          edited_at: null,
        })
        .execute();
      await ok('button.clicked', { ...click, message_id: messageId });
      await refused('button.clicked', { ...click, message_id: messageId, user_id: 'nobody' }, 'unknown_user');
      await invalid([{ type: 'button.clicked', data: { ...click, message_id: messageId, data: 1 } }], 0, 'data');
    });

    // ---------------------------------------------------------------- batches

    it('keys no schema names (in the body, an event, its data) are ignored on every event type and stored nowhere', async () => {
      const [a] = (await ids(1, 5)) as [string];
      const [b, owner] = await two();
      const bot = await createBot(t().app, owner);
      const u = userData();
      const [g, m, d, box] = [uid('g'), uid('m'), uid('d'), uid('box')];
      const [groupMessage, privateMessage] = [uid('msg'), uid('msg')];
      const data: [string, Record<string, unknown>][] = [
        ['user.upserted', { ...u }],
        ['follow.created', { follower_id: a, followed_id: b }],
        ['follow.deleted', { follower_id: a, followed_id: b }],
        ['group.upserted', { group_id: g, name: 'G', invite_url: inviteUrl() }],
        ['group.member.joined', { group_id: g, user_id: a }],
        ['group.member.joined', { group_id: g, user_id: b }],
        ['group.member.left', { group_id: g, user_id: b }],
        ['moment.created', { moment_id: m, author_id: a }],
        ['moment.liked', { moment_id: m, user_id: b }],
        ['moment.unliked', { moment_id: m, user_id: b }],
        ['vote.cast', { vote_id: uid('v'), group_id: g, user_id: a }],
        ['lucky_draw.created', { draw_id: d, group_id: g, initiator_id: a }],
        ['lucky_draw.entered', { draw_id: d, user_id: b }],
        ['lucky_draw.won', { draw_id: d, user_id: b }],
        ['lucky_box.sent', { box_id: box, sender_id: a, amount: '1', count: 1, group_id: g }],
        ['lucky_box.claimed', { box_id: box, user_id: b, amount: '1' }],
        ['points.credited', { user_id: a, amount: '5' }],
        ['bot.energized', { bot_user_id: bot.bot_user_id, by_user_id: a }],
        // A field of the other kind of message is not one of this kind's either.
        [
          'message.created',
          {
            message_id: groupMessage,
            chat_type: 'group',
            from_user_id: a,
            group_id: g,
            kind: 'text',
            text: 'hi',
            to_user_id: b,
          },
        ],
        [
          'message.created',
          {
            message_id: privateMessage,
            chat_type: 'private',
            from_user_id: a,
            to_user_id: b,
            kind: 'text',
            group_id: g,
          },
        ],
        ['button.clicked', { callback_id: uid('cb'), message_id: 'no-message', user_id: a, data: 'x' }],
      ];
      // Text no store could keep is ignored with its field, as is a key holding it.
      const extra = { bio: 'x', note: { deep: [1] }, nul: 'a\u0000b', 'k\u0000': 1 };
      const events = data.map(([type, fields]) => ({ id: uid('evt'), type, data: { ...fields, ...extra }, ts: 1 }));
      const r = await raw(JSON.stringify({ events, source: 'app' }));
      const click = events.at(-1)?.id;
      assert.deepEqual(r.json(), {
        applied: data.length - 1,
        duplicates: 0,
        refused: [{ id: click, reason: 'unknown_message' }],
      });
      assert.equal(r.statusCode, 200);
      like(await userRow(u.user_id), { name: u.name, wallet_address: u.wallet_address, level: u.level });
      like(await userRow(bot.bot_user_id), { level: 2 });
      like(await groupStats(b, g), { draws_entered: 1, draws_won: 1, boxes_received: 1 });
      assert.equal(await balance(a), '5');
      const chat = (id: string) =>
        db().selectFrom('chat_messages').selectAll().where('message_id', '=', id).executeTakeFirst();
      like(await chat(groupMessage), { group_id: g, to_user_id: null, text: 'hi' });
      like(await chat(privateMessage), { group_id: null, to_user_id: b, text: '' });
    });

    it('a batch with one malformed event applies nothing and names the index of that event', async () => {
      const [x] = (await ids(1)) as [string];
      const bad: [string, Ev][] = [
        ['unknown type', { type: 'no.such.event', data: {} }],
        ['missing field', { type: 'follow.created', data: { follower_id: x } }],
        ['wrong type', { type: 'follow.created', data: { follower_id: x, followed_id: 42 } }],
        ['data not an object', { type: 'follow.created', data: null as unknown as Record<string, unknown> }],
      ];
      for (const [what, event] of bad) {
        const u = userData();
        const good: Ev[] = [
          { id: uid('evt'), type: 'user.upserted', data: { ...u } },
          { id: uid('evt'), type: 'follow.created', data: { follower_id: u.user_id, followed_id: x } },
          { id: uid('evt'), type: 'points.credited', data: { user_id: x, amount: '1' } },
        ];
        await invalid([...good, event], 3, what);
        assert.equal(await userRow(u.user_id), undefined, what);
        assert.deepEqual(await processed(good.map((e) => e.id ?? '')), [], what);
        like(await stats(x), { followers: 0 }, what);
        assert.equal(await balance(x), '0', what);
      }
      // Malformed first, or in the middle.
      await invalid(
        [
          { type: 'nope', data: {} },
          { type: 'user.upserted', data: { ...userData() } },
        ],
        0,
      );
      const u = userData();
      await invalid(
        [
          { type: 'user.upserted', data: { ...u } },
          { type: 'user.upserted', data: { ...userData(), level: 'high' } },
          { type: 'user.upserted', data: { ...userData() } },
        ],
        1,
      );
      assert.equal(await userRow(u.user_id), undefined);
    });

    it('a malformed event envelope (missing or empty id, type not text, missing data) is an invalid_event with its index', async () => {
      const u = userData();
      const first = { id: uid('evt'), type: 'user.upserted', data: { ...u } };
      const bad: [string, unknown][] = [
        ['missing id', { type: 'user.upserted', data: { ...userData() } }],
        ['empty id', { id: '', type: 'user.upserted', data: { ...userData() } }],
        ['numeric id', { id: 5, type: 'user.upserted', data: { ...userData() } }],
        ['id too long', { id: 'e'.repeat(129), type: 'user.upserted', data: { ...userData() } }],
        ['numeric type', { id: uid('evt'), type: 7, data: {} }],
        ['missing data', { id: uid('evt'), type: 'user.upserted' }],
        ['not an object', 'user.upserted'],
      ];
      for (const [what, event] of bad) {
        const res = await raw(JSON.stringify({ events: [first, event] }));
        assert.equal(res.statusCode, 400, what);
        const body = res.json<Record<string, unknown>>();
        assert.equal(body.error, 'invalid_event', `${what}: ${res.body}`);
        assert.equal(body.index, 1, what);
        assert.equal(typeof body.message, 'string', what);
      }
      assert.equal(await userRow(u.user_id), undefined);
    });

    it('the first malformed event is the one named, whether its envelope or its data is bad', async () => {
      const res = await raw(
        JSON.stringify({
          events: [
            { id: uid('evt'), type: 'user.upserted', data: { ...userData() } },
            { id: uid('evt'), type: 'user.upserted', data: { ...userData(), level: -1 } },
            { type: 'user.upserted', data: { ...userData() } },
          ],
        }),
      );
      assert.equal(res.statusCode, 400);
      assert.deepEqual(
        { ...res.json<Record<string, unknown>>(), message: '' },
        {
          error: 'invalid_event',
          message: '',
          index: 1,
        },
      );
    });

    it('text holding U+0000 is malformed on every store (PostgreSQL cannot keep it), never a 500', async () => {
      const u = userData();
      const cases: [string, Ev][] = [
        ['in data', { type: 'user.upserted', data: { ...userData(), name: 'a\u0000b' } }],
        [
          'in an id of data',
          { type: 'follow.created', data: { follower_id: `${u.user_id}\u0000`, followed_id: u.user_id } },
        ],
        [
          'in an array',
          {
            type: 'message.created',
            data: {
              message_id: uid('m'),
              chat_type: 'private',
              from_user_id: u.user_id,
              to_user_id: u.user_id,
              kind: 'text',
              mention_user_ids: ['\u0000'],
            },
          },
        ],
        ['in the event id', { id: `e\u0000${uid('evt')}`, type: 'user.upserted', data: { ...userData() } }],
      ];
      for (const [what, event] of cases) {
        await invalid([{ type: 'user.upserted', data: { ...u } }, event], 1, what);
      }
      assert.equal(await userRow(u.user_id), undefined);
    });

    it('refused events are listed in order and do not stop the others', async () => {
      const [x] = (await ids(1)) as [string];
      const u = userData();
      const e = [uid('e1'), uid('e2'), uid('e3'), uid('e4'), uid('e5')] as const;
      const r = await post([
        { id: e[0], type: 'follow.created', data: { follower_id: u.user_id, followed_id: x } },
        { id: e[1], type: 'user.upserted', data: { ...u } },
        { id: e[2], type: 'follow.created', data: { follower_id: u.user_id, followed_id: x } },
        { id: e[3], type: 'moment.liked', data: { moment_id: 'no-moment', user_id: x } },
        { id: e[4], type: 'follow.created', data: { follower_id: x, followed_id: x } },
      ]);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        applied: 2,
        duplicates: 0,
        refused: [
          { id: e[0], reason: 'unknown_user' },
          { id: e[3], reason: 'unknown_moment' },
          { id: e[4], reason: 'self_follow' },
        ],
      });
      like(await stats(x), { followers: 1 });
      like(await stats(u.user_id), { following: 1 });
    });

    it('an empty batch answers zeros', async () => {
      const r = await post([]);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { applied: 0, duplicates: 0, refused: [] });
    });

    // ---------------------------------------------------------------- idempotency

    it('the same batch twice: the second applies nothing, counts duplicates and leaves counters alone', async () => {
      const [a, b] = await two();
      const g = await newGroup();
      const [m, box, d] = [uid('m'), uid('b'), uid('d')];
      const batch: Ev[] = [
        { type: 'follow.created', data: { follower_id: a, followed_id: b } },
        { type: 'group.member.joined', data: { group_id: g, user_id: a } },
        { type: 'moment.created', data: { moment_id: m, author_id: b } },
        { type: 'moment.liked', data: { moment_id: m, user_id: a } },
        { type: 'vote.cast', data: { vote_id: uid('v'), group_id: g, user_id: a } },
        { type: 'lucky_draw.created', data: { draw_id: d, group_id: g, initiator_id: b } },
        { type: 'lucky_draw.won', data: { draw_id: d, user_id: a } },
        { type: 'lucky_box.sent', data: { box_id: box, sender_id: b, amount: '3', count: 2, group_id: g } },
        { type: 'lucky_box.claimed', data: { box_id: box, user_id: a, amount: '1.5' } },
        { type: 'points.credited', data: { user_id: a, amount: '5' } },
        { type: 'follow.created', data: { follower_id: a, followed_id: a } },
      ].map((e) => ({ ...e, id: uid('evt') }));
      const selfFollow = [{ id: batch[10]?.id, reason: 'self_follow' }];
      await outcome(batch, { applied: 10, duplicates: 0, refused: selfFollow });
      const snapshot = async () => ({
        a: await stats(a),
        b: await stats(b),
        group: await groupRow(g),
        moment: await momentRow(m),
        box: await boxRow(box),
        aInGroup: await groupStats(a, g),
        bInGroup: await groupStats(b, g),
        balance: await balance(a),
      });
      const before = await snapshot();
      like(before.group, { member_count: 1, boxes_sent: 1, boxes_sent_cents: 300 });
      like(before.aInGroup, { votes: 1, draws_entered: 1, draws_won: 1, boxes_received: 1 });
      assert.equal(before.balance, '5');
      // The refused event is tried again (and refused again); the applied ones are duplicates.
      await outcome(batch, { applied: 0, duplicates: 10, refused: selfFollow });
      assert.deepEqual(await snapshot(), before);
    });

    it('an id repeated inside one batch is applied once and counted as a duplicate', async () => {
      const [a, b] = await two();
      const credit: Ev = { id: uid('evt'), type: 'points.credited', data: { user_id: a, amount: '1.25' } };
      const follow: Ev = { id: uid('evt'), type: 'follow.created', data: { follower_id: a, followed_id: b } };
      const unfollow: Ev = { ...follow, type: 'follow.deleted' };
      await outcome([credit, follow, credit, unfollow], { applied: 2, duplicates: 2, refused: [] });
      assert.equal(await balance(a), '1.25');
      like(await stats(b), { followers: 1 });
    });

    it('a refused event id sent again after its missing user exists applies, then is a duplicate', async () => {
      const [x] = (await ids(1)) as [string];
      const u = userData();
      const follow: Ev = { id: uid('evt'), type: 'follow.created', data: { follower_id: u.user_id, followed_id: x } };
      const credit: Ev = { id: uid('evt'), type: 'points.credited', data: { user_id: u.user_id, amount: '2' } };
      const refusedBoth = {
        applied: 0,
        duplicates: 0,
        refused: [
          { id: follow.id, reason: 'unknown_user' },
          { id: credit.id, reason: 'unknown_user' },
        ],
      };
      assert.deepEqual((await post([follow, credit])).body, refusedBoth);
      assert.deepEqual((await post([follow, credit])).body, refusedBoth);
      const status = await db()
        .selectFrom('processed_events')
        .select(['status', 'reason'])
        .where('event_id', '=', follow.id ?? '')
        .executeTakeFirst();
      assert.deepEqual(status, { status: 'refused', reason: 'unknown_user' });
      await ok('user.upserted', { ...u });
      assert.deepEqual((await post([follow, credit])).body, { applied: 2, duplicates: 0, refused: [] });
      like(await stats(x), { followers: 1 });
      assert.equal(await balance(u.user_id), '2');
      assert.deepEqual((await post([follow, credit])).body, { applied: 0, duplicates: 2, refused: [] });
      like(await stats(x), { followers: 1 });
      assert.equal(await balance(u.user_id), '2');
    });

    // ---------------------------------------------------------------- concurrent batches

    it('concurrent claims never take more from a lucky box than its count and amount', async () => {
      const [s] = (await ids(1)) as [string];
      const claimers = await ids(16);
      const box = uid('b');
      await ok('lucky_box.sent', { box_id: box, sender_id: s, amount: '5', count: 4 });
      const answers = await Promise.all(
        claimers.map((u) => post([{ type: 'lucky_box.claimed', data: { box_id: box, user_id: u, amount: '1' } }])),
      );
      assert.deepEqual(
        answers.map((r) => r.status),
        claimers.map(() => 200),
      );
      assert.equal(answers.filter((r) => r.body.applied === 1).length, 4);
      like(await boxRow(box), { claimed_count: 4, claimed_cents: 400 });
      const claims = await db().selectFrom('lucky_box_claims').select('user_id').where('box_id', '=', box).execute();
      assert.equal(claims.length, 4);
    });

    it('concurrent joins never fill a group beyond its maximum', async () => {
      const joiners = await ids(16);
      const g = await newGroup({ maximum: 3 });
      const answers = await Promise.all(
        joiners.map((u) => post([{ type: 'group.member.joined', data: { group_id: g, user_id: u } }])),
      );
      assert.deepEqual(
        answers.map((r) => r.status),
        joiners.map(() => 200),
      );
      assert.equal(answers.filter((r) => r.body.applied === 1).length, 3);
      like(await groupRow(g), { member_count: 3 });
      const rows = await db().selectFrom('group_members').select('user_id').where('group_id', '=', g).execute();
      assert.equal(rows.length, 3);
    });

    it('concurrent bot.energized events each raise the level by one', async () => {
      const [owner] = (await ids(1)) as [string];
      const [lv5] = (await ids(1, 5)) as [string];
      const bot = await createBot(t().app, owner);
      const answers = await Promise.all(
        Array.from({ length: 12 }, () =>
          post([{ type: 'bot.energized', data: { bot_user_id: bot.bot_user_id, by_user_id: lv5 } }]),
        ),
      );
      assert.deepEqual(
        answers.map((r) => r.body.applied),
        answers.map(() => 1),
      );
      like(await userRow(bot.bot_user_id), { level: 13 });
    });

    // ---------------------------------------------------------------- request limits

    it('more than 1000 events is a 400 that applies nothing; exactly 1000 are accepted', async () => {
      const many = Array.from({ length: 1001 }, () => userData());
      const events = (list: typeof many): Ev[] => list.map((u) => ({ type: 'user.upserted', data: { ...u } }));
      const r = await post(events(many));
      assert.equal(r.status, 400);
      assert.equal(r.body.error, 'invalid_request');
      assert.equal(typeof r.body.message, 'string');
      const created = () =>
        db()
          .selectFrom('users')
          .select('user_id')
          .where(
            'user_id',
            'in',
            many.map((u) => u.user_id),
          )
          .execute();
      assert.equal((await created()).length, 0);
      const ok1000 = await post(events(many.slice(0, 1000)));
      assert.equal(ok1000.status, 200);
      assert.deepEqual(ok1000.body, { applied: 1000, duplicates: 0, refused: [] });
      assert.equal((await created()).length, 1000);
    });

    it('accepts a body over 64 KiB (the /openapi/ limit) and refuses one over 4 MiB with 413', async () => {
      const users = Array.from({ length: 200 }, () => userData({ avatar: `https://img.example/${'a'.repeat(1500)}` }));
      const payload = JSON.stringify({
        events: users.map((u) => ({ id: uid('evt'), type: 'user.upserted', data: { ...u } })),
      });
      assert.ok(payload.length > 256 * 1024, `body is ${payload.length} bytes`);
      const res = await raw(payload);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { applied: 200, duplicates: 0, refused: [] });

      const u = userData();
      const huge = JSON.stringify({
        events: [
          { id: uid('evt'), type: 'user.upserted', data: { ...u } },
          ...Array.from({ length: 300 }, () => ({
            id: uid('evt'),
            type: 'message.created',
            data: { message_id: uid('m'), chat_type: 'private', from_user_id: u.user_id, to_user_id: u.user_id },
            padding: 'p'.repeat(15_000),
          })),
        ],
      });
      assert.ok(huge.length > 4 * 1024 * 1024, 'huge.length > 4 * 1024 * 1024');
      const tooBig = await raw(huge);
      assert.equal(tooBig.statusCode, 413);
      assert.equal(tooBig.json<Record<string, unknown>>().error, 'payload_too_large');
      assert.equal(await userRow(u.user_id), undefined);
    });

    it('malformed JSON and batches that are not {"events":[...]} are 400 invalid_request, never 500', async () => {
      const cases: [string, string, Record<string, string>?][] = [
        ['truncated JSON', '{"events": [{"id": "e1", '],
        ['not JSON', 'events please'],
        ['empty body', ''],
        ['trailing garbage', '{"events": []} x'],
        ['a JSON array', '[]'],
        ['no events', '{}'],
        ['events not an array', '{"events": {"id": "e"}}'],
        ['events null', '{"events": null}'],
        ['text/plain', '{"events": []}', { 'content-type': 'text/plain' }],
        ['form', 'events=1', { 'content-type': 'application/x-www-form-urlencoded' }],
      ];
      for (const [what, payload, headers] of cases) {
        const res = await raw(payload, headers);
        assert.equal(res.statusCode, 400, `${what}: ${res.statusCode} ${res.body}`);
        const body = res.json<Record<string, unknown>>();
        assert.equal(body.error, 'invalid_request', what);
        assert.equal(typeof body.message, 'string', what);
      }
    });
  },
  { clock },
);
