// The read API of seed-api.md (User information, Group, Moment, Votes/lucky draws/lucky box),
// from data posted as events: exact codes, fields, JSON types, old paths and aliases.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeStores } from './helpers/app.js';
import {
  applyEvents,
  createApp,
  createUsers,
  signedHeaders,
  uid,
  type Creds,
  type Ev,
  type TestUser,
} from './helpers/factories.js';

await describeStores('read API', (t) => {
  let creds: Creds;
  let u: TestUser[];
  const group = { group_id: uid('g'), invite_url: `https://m.example/group/${uid('inv')}` };
  const moment = uid('m');
  const get = async (path: string, query: Record<string, string | number>, headers?: Record<string, string>) => {
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
    const res = await t().app.inject({ method: 'GET', url: `${path}?${qs}`, headers: headers ?? signedHeaders(creds) });
    return {
      status: res.statusCode,
      body: res.json<{ code: number; data: unknown; message: string; success: boolean }>(),
    };
  };
  const data = async (path: string, query: Record<string, string | number>, code: number) => {
    const r = await get(path, query);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.code, code, `${path} code`);
    assert.equal(r.body.success, true);
    assert.equal(r.body.message, 'success');
    return r.body.data;
  };
  const events = (list: Ev[]) => applyEvents(t().app, list);

  it('builds a community through events', async () => {
    u = await createUsers(t().app, 5);
    const [a, b, c, d] = u as [TestUser, TestUser, TestUser, TestUser];
    creds = await createApp(t().app, a.user_id);
    await events([
      {
        type: 'group.upserted',
        data: {
          ...group,
          name: 'Readers',
          pic: 'https://img.example/g.png',
          is_charge: true,
          subchannel_number: 3,
          maximum: 500,
          created_at: '2025-01-02 03:04:05',
          owner_id: a.user_id,
        },
      },
      { type: 'group.member.joined', data: { group_id: group.group_id, user_id: a.user_id, role: 'admin' } },
      { type: 'group.member.joined', data: { group_id: group.group_id, user_id: b.user_id, role: 'moderator' } },
      { type: 'group.member.joined', data: { group_id: group.group_id, user_id: c.user_id, role: 'moderator' } },
      { type: 'group.member.joined', data: { group_id: group.group_id, user_id: d.user_id } },
      { type: 'follow.created', data: { follower_id: b.user_id, followed_id: a.user_id } },
      { type: 'follow.created', data: { follower_id: c.user_id, followed_id: a.user_id } },
      { type: 'follow.created', data: { follower_id: d.user_id, followed_id: a.user_id } },
      { type: 'moment.created', data: { moment_id: moment, author_id: a.user_id } },
      { type: 'moment.liked', data: { moment_id: moment, user_id: b.user_id } },
      { type: 'moment.liked', data: { moment_id: moment, user_id: b.user_id } },
      { type: 'moment.liked', data: { moment_id: moment, user_id: c.user_id } },
    ]);
  });

  it('GET /openapi/user/followers lists the key owner’s followers newest first, paged', async () => {
    const [, b, c, d] = u as [TestUser, TestUser, TestUser, TestUser];
    const view = (x: TestUser) => ({
      name: x.name,
      wallet_address: x.wallet_address,
      avatar: x.avatar,
      uid: x.user_id,
    });
    assert.deepEqual(await data('/openapi/user/followers', {}, 1), [view(d), view(c), view(b)]);
    // Left empty (as some SDKs send an unset field), each has its default, as when left out.
    assert.deepEqual(await data('/openapi/user/followers', { page: '', size: '' }, 1), [view(d), view(c), view(b)]);
    assert.deepEqual(await data('/openapi/user/followers', { page: 1, size: 2 }, 1), [view(d), view(c)]);
    assert.deepEqual(await data('/openapi/user/followers', { page: 2, size: 2 }, 1), [view(b)]);
    assert.deepEqual(await data('/openapi/user/followers', { page: 3, size: 2 }, 1), []);
    const bads: Record<string, string | number>[] = [
      { page: 0 },
      { size: 0 },
      { size: 101 },
      { page: 'x' },
      { size: 1.5 },
      // Decimal digits only: not what JavaScript's Number() also reads (decisions.md section 4).
      { size: '1e1' },
      { size: '0x10' },
      { size: '+5' },
      { size: ' 5' },
      { size: '5.0' },
      { page: '1e0' },
    ];
    for (const bad of bads) {
      const r = await get('/openapi/user/followers', bad);
      assert.equal(r.status, 401, JSON.stringify(bad));
      assert.equal(r.body.message, 'Param error');
    }
  });

  it('GET /openapi/user/is_follow answers {case3702} and flips on unfollow', async () => {
    const [a, b] = u as [TestUser, TestUser];
    const q = { walletAddress: b.wallet_address, followAddress: a.wallet_address, chain_id: 1 };
    assert.deepEqual(await data('/openapi/user/is_follow', q, 1), { case3702: true });
    assert.deepEqual(
      await data('/openapi/user/is_follow', { walletAddress: a.wallet_address, followAddress: b.wallet_address }, 1),
      { case3702: false },
    );
    await events([{ type: 'follow.deleted', data: { follower_id: b.user_id, followed_id: a.user_id } }]);
    assert.deepEqual(await data('/openapi/user/is_follow', q, 1), { case3702: false });
    await events([{ type: 'follow.created', data: { follower_id: b.user_id, followed_id: a.user_id } }]);
    assert.deepEqual(
      await data(
        '/openapi/user/is_follow',
        { ...q, walletAddress: b.wallet_address.toUpperCase().replace('0X', '0x') },
        1,
      ),
      { case3702: true },
      'addresses compare case-insensitively',
    );
    const missing = await get('/openapi/user/is_follow', { walletAddress: b.wallet_address });
    assert.equal(missing.status, 401);
    assert.deepEqual(missing.body, {
      error: 'Bad Request',
      code: 401,
      message: 'Param error',
      detail: 'querystring.followAddress: required',
    });
  });

  it('GET /openapi/group/info answers the group with code 200 and exact types', async () => {
    const [, b, c] = u as [TestUser, TestUser, TestUser];
    assert.deepEqual(await data('/openapi/group/info', { group_invite_url: group.invite_url }, 200), {
      is_charge: true,
      subchannel_number: 3,
      group_name: 'Readers',
      group_number: 4,
      group_pic: 'https://img.example/g.png',
      create_time: '2025-01-02 03:04:05',
      maximum: '500',
      mod: [b.name, c.name],
    });
    const slash = await data('/openapi/group/info', { group_invite_url: `${group.invite_url}/` }, 200);
    assert.equal((slash as { group_name: string }).group_name, 'Readers', 'share URL with a trailing slash');
  });

  it('an unknown group is an error, never zeros', async () => {
    const r = await get('/openapi/group/info', { group_invite_url: 'https://m.example/group/none' });
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, { error: 'Not Found', code: 404, message: 'unknown group' });
    const missing = await get('/openapi/group/info', {});
    assert.equal(missing.status, 401);
  });

  it('GET /openapi/group/is_join answers {case3701} and flips when the member leaves', async () => {
    const [, , , d, e] = u as [TestUser, TestUser, TestUser, TestUser, TestUser];
    const q = (w: TestUser) => ({ walletAddress: w.wallet_address, url: group.invite_url });
    assert.deepEqual(await data('/openapi/group/is_join', q(d), 200), { case3701: true });
    assert.deepEqual(await data('/openapi/group/is_join', q(e), 200), { case3701: false });
    assert.deepEqual(await data('/openapi/group/is_join', { ...q(d), chain_id: 56 }, 200), { case3701: false });
    await events([{ type: 'group.member.left', data: { group_id: group.group_id, user_id: d.user_id } }]);
    assert.deepEqual(await data('/openapi/group/is_join', q(d), 200), { case3701: false });
    const info = (await data('/openapi/group/info', { group_invite_url: group.invite_url }, 200)) as {
      group_number: number;
    };
    assert.equal(info.group_number, 3);
    const unknown = await get('/openapi/group/is_join', {
      walletAddress: d.wallet_address,
      url: 'https://nope.example/g',
    });
    assert.equal(unknown.status, 404);
  });

  it('moment endpoints: liking twice counts once, unliking decrements', async () => {
    const [a, b, c] = u as [TestUser, TestUser, TestUser];
    const view = (x: TestUser) => ({
      name: x.name,
      wallet_address: x.wallet_address,
      avatar: x.avatar,
      uid: x.user_id,
    });
    assert.deepEqual(await data('/openapi/moment/receive_praise', { moment_id: moment }, 1), {
      receive_praise_total: 2,
      praise_users: [view(c), view(b)],
    });
    assert.deepEqual(await data('/openapi/moment/praise_info', { wallet_address: a.wallet_address }, 1), {
      receive_praise_total: 2,
      send_praise_total: 0,
    });
    assert.deepEqual(await data('/openapi/moment/praise_info', { wallet_address: b.wallet_address, chain_id: 1 }, 1), {
      receive_praise_total: 0,
      send_praise_total: 1,
    });
    const give = (w: TestUser) => ({ wallet_address: w.wallet_address, moment_id: moment });
    assert.deepEqual(await data('/openapi/moment/give_praise', give(b), 1), { is_praise: true });
    assert.deepEqual(await data('/openapi/moment/give_praise', give(a), 1), { is_praise: false });
    await events([{ type: 'moment.unliked', data: { moment_id: moment, user_id: b.user_id } }]);
    assert.deepEqual(await data('/openapi/moment/give_praise', give(b), 1), { is_praise: false });
    assert.deepEqual(await data('/openapi/moment/receive_praise', { moment_id: moment, size: 1 }, 1), {
      receive_praise_total: 1,
      praise_users: [view(c)],
    });
    assert.deepEqual(await data('/openapi/moment/praise_info', { wallet_address: a.wallet_address }, 1), {
      receive_praise_total: 1,
      send_praise_total: 0,
    });
  });

  it('an unknown moment is an error; an unknown wallet has zeros', async () => {
    const r = await get('/openapi/moment/receive_praise', { moment_id: 'none' });
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, { error: 'Not Found', code: 404, message: 'unknown moment' });
    const g = await get('/openapi/moment/give_praise', { wallet_address: '0xabc', moment_id: 'none' });
    assert.equal(g.status, 404);
    assert.deepEqual(await data('/openapi/moment/praise_info', { wallet_address: '0xnobody' }, 1), {
      receive_praise_total: 0,
      send_praise_total: 0,
    });
    const missing = await get('/openapi/moment/praise_info', {});
    assert.equal(missing.status, 401);
    assert.equal(missing.body.message, 'Param error');
  });

  it('votes and lucky draws count per wallet and group, on both paths', async () => {
    const [a, b, c] = u as [TestUser, TestUser, TestUser];
    const draw = uid('d');
    await events([
      { type: 'vote.cast', data: { vote_id: 'v1', group_id: group.group_id, user_id: b.user_id } },
      { type: 'vote.cast', data: { vote_id: 'v1', group_id: group.group_id, user_id: b.user_id } },
      { type: 'vote.cast', data: { vote_id: 'v2', group_id: group.group_id, user_id: b.user_id } },
      { type: 'lucky_draw.created', data: { draw_id: draw, group_id: group.group_id, initiator_id: a.user_id } },
      { type: 'lucky_draw.entered', data: { draw_id: draw, user_id: b.user_id } },
      { type: 'lucky_draw.entered', data: { draw_id: draw, user_id: c.user_id } },
      { type: 'lucky_draw.won', data: { draw_id: draw, user_id: b.user_id } },
    ]);
    const q = (w: TestUser) => ({ wallet_address: w.wallet_address, chain_id: 1, group_invite_url: group.invite_url });
    for (const path of ['/openapi/vote/info', '/openapi/behavior/vote']) {
      assert.deepEqual(await data(path, q(b), 200), { vote_number: 2 }, path);
      assert.deepEqual(await data(path, q(c), 200), { vote_number: 0 }, path);
    }
    for (const path of ['/openapi/lucky_draw/info', '/openapi/behavior/lucky_draw']) {
      assert.deepEqual(await data(path, q(a), 1), {
        initiate_luckDraw_total: 1,
        luckDraw_total: 0,
        luckDraw_win_total: 0,
      });
      assert.deepEqual(await data(path, q(b), 1), {
        initiate_luckDraw_total: 0,
        luckDraw_total: 1,
        luckDraw_win_total: 1,
      });
    }
    const unknownGroup = await get('/openapi/vote/info', { ...q(b), group_invite_url: 'https://x.example/none' });
    assert.equal(unknownGroup.status, 404);
  });

  it('lucky boxes sum two-decimal amounts exactly, on every path', async () => {
    const [a, b, c] = u as [TestUser, TestUser, TestUser];
    const [box1, box2] = [uid('b'), uid('b')];
    await events([
      {
        type: 'lucky_box.sent',
        data: { box_id: box1, sender_id: a.user_id, amount: '0.30', count: 3, group_id: group.group_id },
      },
      { type: 'lucky_box.sent', data: { box_id: box2, sender_id: a.user_id, amount: 10.1, count: 1 } },
      { type: 'lucky_box.claimed', data: { box_id: box1, user_id: b.user_id, amount: '0.1' } },
      { type: 'lucky_box.claimed', data: { box_id: box1, user_id: c.user_id, amount: '0.2' } },
      { type: 'lucky_box.claimed', data: { box_id: box2, user_id: b.user_id, amount: '10.1' } },
    ]);
    for (const path of ['/openapi/lucky_box/user', '/openapi/lucky_box/user222']) {
      assert.deepEqual(await data(path, { wallet_address: a.wallet_address }, 1), {
        receive_luckyBox_number: 0,
        receive_luckyBox_total: 0,
        send_luckyBox_number: 2,
        send_luckyBox_total: 10.4,
      });
      assert.deepEqual(await data(path, { wallet_address: b.wallet_address, chain_id: 1 }, 1), {
        receive_luckyBox_number: 2,
        receive_luckyBox_total: 10.2,
        send_luckyBox_number: 0,
        send_luckyBox_total: 0,
      });
    }
    const inGroup = (w: TestUser) => ({
      wallet_address: w.wallet_address,
      chain_id: 1,
      group_invite_url: group.invite_url,
    });
    assert.deepEqual(await data('/openapi/lucky_box/user/group', inGroup(b), 1), { receive_luckyBox_number: 1 });
    assert.deepEqual(await data('/openapi/lucky_box/group', { group_invite_url: group.invite_url }, 200), {
      sum_amount: 0.3,
      total_num: 1,
    });
  });

  it('chain_id defaults to 1 and selects the wallet of that chain', async () => {
    const [, b] = u as [TestUser, TestUser];
    const bsc = `0x${'5'.repeat(40)}`;
    await events([
      { type: 'user.upserted', data: { user_id: b.user_id, name: b.name, wallet_address: bsc, chain_id: 56 } },
    ]);
    assert.deepEqual(await data('/openapi/lucky_box/user', { wallet_address: bsc, chain_id: 56 }, 1), {
      receive_luckyBox_number: 2,
      receive_luckyBox_total: 10.2,
      send_luckyBox_number: 0,
      send_luckyBox_total: 0,
    });
    const onMainnet = (await data('/openapi/lucky_box/user', { wallet_address: bsc }, 1)) as {
      receive_luckyBox_number: number;
    };
    assert.equal(onMainnet.receive_luckyBox_number, 0);
  });

  it('every read endpoint takes key-only calls too, and refuses a bad key with the exact 400', async () => {
    const [a] = u as [TestUser];
    const keyOnly = { 'x-api-key': creds.api_key };
    const calls: [string, Record<string, string>][] = [
      ['/openapi/authorize/userinfo', { user_id: a.user_id }],
      ['/openapi/user/is_follow', { walletAddress: a.wallet_address, followAddress: a.wallet_address }],
      ['/openapi/group/info', { group_invite_url: group.invite_url }],
      ['/openapi/group/is_join', { walletAddress: a.wallet_address, url: group.invite_url }],
      ['/openapi/moment/praise_info', { wallet_address: a.wallet_address }],
      ['/openapi/moment/give_praise', { wallet_address: a.wallet_address, moment_id: moment }],
      ['/openapi/moment/receive_praise', { moment_id: moment }],
      ['/openapi/vote/info', { wallet_address: a.wallet_address, group_invite_url: group.invite_url }],
      ['/openapi/lucky_draw/info', { wallet_address: a.wallet_address, group_invite_url: group.invite_url }],
      ['/openapi/lucky_box/user', { wallet_address: a.wallet_address }],
      ['/openapi/lucky_box/user/group', { wallet_address: a.wallet_address, group_invite_url: group.invite_url }],
      ['/openapi/lucky_box/group', { group_invite_url: group.invite_url }],
    ];
    for (const [path, query] of calls) {
      assert.equal((await get(path, query, keyOnly)).status, 200, path);
      const bad = await get(path, query, { 'x-api-key': 'nope' });
      assert.equal(bad.status, 400, path);
      assert.deepEqual(bad.body, { error: 'Bad Request', code: 400, message: 'You X-API-KEY is not available' });
    }
  });
});

await describeStores('user info after profile changes', (t) => {
  it('shows a renamed user at once although profiles are cached', async () => {
    const [user] = (await createUsers(t().app, 1)) as [TestUser];
    const creds = await createApp(t().app, user.user_id);
    const info = async () =>
      (
        await t().app.inject({
          method: 'GET',
          url: `/openapi/user/info?user_id=${user.user_id}`,
          headers: { 'x-api-key': creds.api_key },
        })
      ).json<{ data: { name: string; avatar: string } }>().data;
    assert.equal((await info()).name, user.name);
    await applyEvents(t().app, [
      { type: 'user.upserted', data: { ...user, name: 'Renamed', avatar: 'https://img.example/new.png' } },
    ]);
    assert.deepEqual(await info(), {
      name: 'Renamed',
      wallet_address: user.wallet_address,
      avatar: 'https://img.example/new.png',
      uid: user.user_id,
    });
  });
});
