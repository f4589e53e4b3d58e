// IETF RateLimit / RateLimit-Policy headers beside Retry-After on every rate-limited surface
// (issue 18): bot methods, /openapi/ sends and /openapi/ reads. Additive: bodies stay as they were.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openSharedState } from '../src/lib/shared-state.js';
import { describeStoresOnFakeClock, startTestApp } from './helpers/app.js';
import { REDIS_URL, redisTestPrefix, redisUnderTest } from './helpers/stores.js';
import { botCall } from './helpers/delivery.js';
import { applyEvents, createApp, createBot, createUsers, signedHeaders, type TestUser } from './helpers/factories.js';

/** Retry-After, RateLimit-Policy and RateLimit of an answer. */
const limitHeaders = (h: Record<string, unknown>): unknown[] => [h['retry-after'], h['ratelimit-policy'], h.ratelimit];

await describeStoresOnFakeClock(
  'RateLimit headers on 429 answers',
  (t, clock) => {
    it('a bot method names the private-chat bucket: 5 per 5 s, none left, back in 1 s', async () => {
      const [owner, a] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
      const bot = await createBot(t().app, owner.user_id);
      const send = () => botCall(t().app, 'sendMessage', bot.api_key, { chat_id: a.user_id, text: 'hi' });
      for (let i = 0; i < 5; i++) assert.equal((await send()).body.ok, true, `send #${i}`);
      const limited = await send();
      assert.equal(limited.body.error_code, 429);
      assert.deepEqual(limitHeaders(limited.headers), ['1', '"chat";q=5;w=5', '"chat";r=0;t=1']);
    });

    it('a key-only group send names the group bucket: 20 per 60 s, back in 3 s', async () => {
      const [owner] = (await createUsers(t().app, 1)) as [TestUser];
      const bot = await createBot(t().app, owner.user_id);
      const gid = `g${owner.user_id}`;
      await applyEvents(t().app, [
        { type: 'group.upserted', data: { group_id: gid, name: 'g', invite_url: `https://chat.example/${gid}` } },
        { type: 'group.member.joined', data: { group_id: gid, user_id: bot.bot_user_id } },
      ]);
      const send = () =>
        t().app.inject({
          method: 'POST',
          url: '/openapi/send_robot_group_message',
          headers: { 'x-api-key': bot.api_key },
          payload: { group_id: gid, object_name: 'RC:TxtMsg', message: 'hi' },
        });
      for (let i = 0; i < 20; i++) assert.equal((await send()).statusCode, 200, `send #${i}`);
      const limited = await send();
      assert.equal(limited.statusCode, 429);
      assert.deepEqual(limitHeaders(limited.headers), ['3', '"group";q=20;w=60', '"group";r=0;t=3']);
    });

    it('a read names the per-key read bucket', async () => {
      const [owner] = (await createUsers(t().app, 1)) as [TestUser];
      const app = await createApp(t().app, owner.user_id);
      const read = () =>
        t().app.inject({
          method: 'GET',
          url: `/openapi/authorize/userinfo?user_id=${owner.user_id}`,
          headers: { 'x-api-key': app.api_key },
        });
      for (let i = 0; i < 2; i++) assert.equal((await read()).statusCode, 200, `read #${i}`);
      const limited = await read();
      assert.equal(limited.statusCode, 429);
      assert.deepEqual(limitHeaders(limited.headers), ['1', '"read";q=2;w=1', '"read";r=0;t=1']);
    });

    it('a signed read the read limit refuses keeps its nonce: claims wait for the limit', async () => {
      const [owner] = (await createUsers(t().app, 1)) as [TestUser];
      const app = await createApp(t().app, owner.user_id);
      const read = (headers: Record<string, string>) =>
        t().app.inject({ method: 'GET', url: `/openapi/user/info?user_id=${owner.user_id}`, headers });
      for (let i = 0; i < 2; i++) {
        assert.equal((await read(signedHeaders(app, { now: clock.now() }))).statusCode, 200, `read #${i}`);
      }
      const headers = signedHeaders(app, { now: clock.now(), nonce: 'kept1' });
      assert.equal((await read(headers)).statusCode, 429);
      clock.advance(1_000);
      assert.equal((await read(headers)).statusCode, 200, 'the refused read did not burn its nonce');
      const replay = await read(headers);
      assert.equal(replay.statusCode, 401);
      assert.equal(replay.json<{ message: string }>().message, 'nonce already used');
      // The replay spent no token: a new read still has the second of this second's two.
      assert.equal((await read(signedHeaders(app, { now: clock.now() }))).statusCode, 200, 'replays spend no token');
      assert.equal((await read(signedHeaders(app, { now: clock.now() }))).statusCode, 429);
    });

    // The in-memory buckets refilled by (now - at): an hour's step back of the wall clock (NTP) left
    // a bucket used just before at minus 3600 tokens, and the bot's sends refused for an hour.
    it('the wall clock set back an hour: the next send goes out, and a drained chat refills in 1 s', async () => {
      const [owner, a] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
      const bot = await createBot(t().app, owner.user_id);
      const send = () => botCall(t().app, 'sendMessage', bot.api_key, { chat_id: a.user_id, text: 'hi' });
      assert.equal((await send()).body.ok, true);
      clock.advance(-3_600_000);
      try {
        for (let i = 0; i < 4; i++) assert.equal((await send()).body.ok, true, `send #${i} after the step back`);
        const limited = await send();
        assert.deepEqual(limitHeaders(limited.headers), ['1', '"chat";q=5;w=5', '"chat";r=0;t=1']);
        clock.advance(1_000);
        assert.equal((await send()).body.ok, true, 'a token back 1 s later, not an hour later');
      } finally {
        clock.advance(3_600_000);
      }
    });
  },
  { env: { RATE_LIMITS: 'on', RATE_LIMIT_READS_PER_S: '2' } },
);

const redisUp = await redisUnderTest('replayed reads on Redis');

describe('signed reads on Redis: replays refused at the claim', { skip: redisUp ? false : 'Redis unreachable' }, () => {
  it('ten copies of one signed read sent at once spend one read token, not ten', async () => {
    const shared = await openSharedState(REDIS_URL, { prefix: redisTestPrefix() });
    const t = await startTestApp('sqlite', { env: { RATE_LIMITS: 'on', RATE_LIMIT_READS_PER_S: '10' }, shared });
    try {
      const [owner] = (await createUsers(t.app, 1)) as [TestUser];
      const app = await createApp(t.app, owner.user_id);
      const read = (headers: Record<string, string>) =>
        t.app.inject({ method: 'GET', url: `/openapi/user/info?user_id=${owner.user_id}`, headers });
      const copy = signedHeaders(app);
      const answers = await Promise.all(Array.from({ length: 10 }, () => read(copy)));
      assert.deepEqual(answers.map((r) => r.statusCode).sort(), [200, 401, 401, 401, 401, 401, 401, 401, 401, 401]);
      assert.equal((await read(signedHeaders(app))).statusCode, 200, 'the copies left the key its tokens');
    } finally {
      await t.close();
      await shared.close();
    }
  });
});
