// The retention sweep (src/modules/retention/): each table it prunes loses a row the moment its
// window has passed, as the rows' readers see it, and keeps it until then; a sweep that fails
// leaves the process running and sweeps again a minute later. OAuth grants go only once their
// absence changes no answer a client gets; the dispatcher's expiry of Updates goes in batches too.
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { sha256Hex } from '../src/lib/crypto.js';
import { ADMIN_TOKEN, describeStoresOnFakeClock, startTestApp } from './helpers/app.js';
import { botCall, failed, metric, result, say, startReceiver } from './helpers/delivery.js';
import {
  applyEvents,
  createApp,
  createBot,
  createUsers,
  sessionToken,
  uid,
  type BotCreds,
  type Creds,
  type TestUser,
} from './helpers/factories.js';
import { ACCEPTED, GROUP_SEND } from './helpers/outbox.js';
import { pageClient } from './helpers/pages.js';
import { storesUnderTest } from './helpers/stores.js';

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;
/** REFRESH_TOKEN_TTL_S and AUTH_CODE_TTL_S as configured by default. */
const REFRESH_TTL = 14 * DAY;
const CODE_TTL = 300_000;
const REDIRECT = 'https://client.example/cb';

interface TokenAnswer {
  status: number;
  body: { data?: { access_token?: unknown; refresh_token?: unknown } | null; [field: string]: unknown };
}
const loginFailure = (code: number, message: string): TokenAnswer => ({
  status: 200,
  body: { code, data: null, message, success: false },
});
const CODE_EXPIRED = loginFailure(-2010, 'code expired');
const CODE_INVALID = loginFailure(-2011, 'code invalid');
const REFRESH_FAILED = loginFailure(-2012, 'refreshing the access token failed');

/** A token endpoint's success, exactly: its refresh token. */
function issued(r: TokenAnswer): string {
  const access = r.body.data?.access_token;
  const refresh = r.body.data?.refresh_token;
  assert.ok(typeof access === 'string' && typeof refresh === 'string', JSON.stringify(r));
  assert.deepEqual(r, {
    status: 200,
    body: {
      code: 1,
      data: { access_token: access, expires_in: 7200, refresh_token: refresh, token_type: '' },
      message: 'success',
      success: true,
      access_token: access,
      token_type: 'Bearer',
      expires_in: 7200,
      refresh_token: refresh,
    },
  });
  return refresh;
}

await describeStoresOnFakeClock(
  'retention: the sweep deletes what has outlived its window, and nothing else',
  (t, clock) => {
    let user: TestUser;
    let bot: BotCreds;
    let client: Creds;
    const group = uid('g');
    const k = () => t().services.db.k;
    const sweep = () => t().services.retention.sweep();
    const token = async (path: string, params: Record<string, string>): Promise<TokenAnswer> => {
      const query = new URLSearchParams({
        app_id: client.app_id,
        app_secret: client.app_secret,
        user_id: user.user_id,
        ...params,
      });
      const res = await t().app.inject({ method: 'GET', url: `/openapi/oauth2/${path}?${query.toString()}` });
      return { status: res.statusCode, body: res.json<TokenAnswer['body']>() };
    };
    const exchange = (code: string) => token('access_token', { grant_type: 'authorization_code', code });
    const refresh = (refreshToken: string) =>
      token('refresh_token', { grant_type: 'refresh_token', refresh_token: refreshToken });
    /** A code of `client` for `user` (as the authorize page issues after Allow), and the family it opens. */
    const issueCode = async () => {
      const ref = await t().services.oauth.appForRedirect(client.app_id, REDIRECT);
      assert.ok(ref !== undefined, 'redirect URI registered');
      const code = await t().services.oauth.issueCode(ref, user.user_id, REDIRECT, 'moment');
      const row = await k()
        .selectFrom('oauth_codes')
        .select('family_id')
        .where('code_hash', '=', sha256Hex(code))
        .executeTakeFirstOrThrow();
      return { code, family: row.family_id };
    };
    /** What is stored of a grant: its code (by `code`), its family and its refresh tokens' hashes. */
    const grant = async (code: string, family: string) => ({
      code: (await k().selectFrom('oauth_codes').select('code_hash').where('code_hash', '=', sha256Hex(code)).execute())
        .length,
      family: (await k().selectFrom('token_families').select('family_id').where('family_id', '=', family).execute())
        .length,
      tokens: (
        await k()
          .selectFrom('refresh_tokens')
          .select('token_hash')
          .where('family_id', '=', family)
          .orderBy('token_hash')
          .execute()
      ).map((r) => r.token_hash),
    });
    const hashes = (...tokens: string[]) => tokens.map(sha256Hex).sort();
    /** Of two sessions (`ids`, the first older), the first goes on the ms after it expires, not before. */
    const goesOnExpiry = async (live: () => Promise<{ id: string; expires_at: number }[]>, ids: string[]) => {
      const [first] = await live();
      assert.ok(first !== undefined && first.id === ids[0], 'the first session expires first');
      clock.ms = first.expires_at - 1;
      await sweep();
      assert.equal((await live()).length, 2, 'the first still signs in on its last ms');
      clock.advance(1);
      await sweep();
      assert.deepEqual(
        (await live()).map((s) => s.id),
        [ids[1]],
      );
    };

    it('builds a user, and a bot in a group', async () => {
      [user] = (await createUsers(t().app, 1)) as [TestUser];
      bot = await createBot(t().app, user.user_id);
      client = await createApp(t().app, user.user_id);
      await applyEvents(t().app, [
        { type: 'group.upserted', data: { group_id: group, name: 'Sweepers', invite_url: 'https://chat.example/s' } },
        { type: 'group.member.joined', data: { group_id: group, user_id: bot.bot_user_id } },
      ]);
    });

    it('a keyed send: its key row goes once its 24 hours have passed (the key performs again then), not before', async () => {
      const keys = () =>
        k()
          .selectFrom('idempotency_keys')
          .select('key')
          .where('scope', '=', `send:${bot.app_id}`)
          .orderBy('key')
          .execute();
      const send = async (key: string) => {
        const res = await t().app.inject({
          method: 'POST',
          url: GROUP_SEND,
          headers: { 'x-api-key': bot.api_key, 'idempotency-key': key },
          payload: { group_id: group, object_name: 'text', content: key },
        });
        assert.deepEqual(res.json(), ACCEPTED);
      };
      await send('a-old');
      clock.advance(HOUR);
      await send('b-new');
      clock.advance(23 * HOUR);
      await sweep();
      assert.deepEqual(await keys(), [{ key: 'a-old' }, { key: 'b-new' }], 'the first still replays on its last ms');
      clock.advance(1);
      await sweep();
      assert.deepEqual(await keys(), [{ key: 'b-new' }]);
    });

    it('a backlog longer than one delete statement takes (a thousand rows) goes whole', async () => {
      const scope = uid('backlog');
      const old = clock.now() - 25 * HOUR;
      const rows = Array.from({ length: 2_500 }, (_, i) => ({
        scope,
        key: `k${i}`,
        body: 'msg',
        status_code: 200,
        created_at: old + i,
      }));
      for (let i = 0; i < rows.length; i += 500)
        await k()
          .insertInto('idempotency_keys')
          .values(rows.slice(i, i + 500))
          .execute();
      await k()
        .insertInto('idempotency_keys')
        .values({ scope, key: 'fresh', body: 'msg', status_code: 200, created_at: clock.now() })
        .execute();
      await sweep();
      const left = await k().selectFrom('idempotency_keys').select('key').where('scope', '=', scope).execute();
      assert.deepEqual(left, [{ key: 'fresh' }]);
    });

    it('an authorize-page session (POST /internal/v1/sessions) goes once it has expired, not before', async () => {
      const hashes = [sha256Hex(await sessionToken(t().app, user.user_id))];
      clock.advance(HOUR);
      hashes.push(sha256Hex(await sessionToken(t().app, user.user_id)));
      await goesOnExpiry(
        () =>
          k()
            .selectFrom('sessions')
            .select(['session_hash as id', 'expires_at'])
            .where('session_hash', 'in', hashes)
            .orderBy('expires_at')
            .execute(),
        hashes,
      );
    });

    it('a console session goes once it has expired, not before', async () => {
      const names = [uid('op'), uid('op')];
      const signIn = async (name: string) => {
        const client = pageClient(t().app, '');
        await client.get('/console/sign-in');
        assert.equal((await client.post('/console/sign-in', { token: ADMIN_TOKEN, name })).status, 303);
      };
      await signIn(names[0] ?? '');
      clock.advance(HOUR);
      await signIn(names[1] ?? '');
      await goesOnExpiry(
        () =>
          k()
            .selectFrom('console_sessions')
            .select(['operator_name as id', 'expires_at'])
            .where('operator_name', 'in', names)
            .orderBy('expires_at')
            .execute(),
        names,
      );
    });

    it("a webhook delivery's log row goes after a week, not before", async () => {
      const receiver = await startReceiver();
      try {
        result(await botCall(t().app, 'setWebhook', bot.api_key, { url: receiver.url }));
        const deliver = async (text: string) => {
          await say(t().app, { from: user.user_id, to: bot.bot_user_id, text });
          assert.equal(await t().services.dispatcher.tick(), 1);
        };
        await deliver('first');
        const start = clock.now();
        clock.advance(HOUR);
        await deliver('second');
        const log = async () =>
          (
            await k()
              .selectFrom('webhook_deliveries')
              .select('created_at')
              .where('bot_user_id', '=', bot.bot_user_id)
              .orderBy('created_at')
              .execute()
          ).map((d) => d.created_at - start);
        assert.deepEqual(await log(), [0, HOUR]);
        clock.ms = start + 7 * 24 * HOUR;
        await sweep();
        assert.deepEqual(await log(), [0, HOUR], 'the first is kept for the whole week');
        clock.advance(1);
        await sweep();
        assert.deepEqual(await log(), [HOUR]);
      } finally {
        await receiver.close();
      }
    });

    it('a refresh token goes once expired, answered as before (as an unknown one is); its family and the live token stay', async () => {
      const { code, family } = await issueCode();
      const start = clock.now();
      const first = issued(await exchange(code));
      clock.advance(DAY);
      const second = issued(await refresh(first));
      clock.ms = start + REFRESH_TTL - 1;
      await sweep();
      assert.deepEqual(await grant(code, family), { code: 1, family: 1, tokens: hashes(first, second) });
      clock.advance(1);
      assert.deepEqual(await refresh(first), REFRESH_FAILED, 'expired, still stored');
      await sweep();
      assert.deepEqual(await grant(code, family), { code: 1, family: 1, tokens: hashes(second) });
      assert.deepEqual(await refresh(first), REFRESH_FAILED, 'gone');
      assert.deepEqual(await refresh('no-such-refresh-token'), REFRESH_FAILED, 'never known');
      issued(await refresh(second));
    });

    it('a used code is reused a minute later, across a sweep: -2011, and its family is revoked', async () => {
      const { code } = await issueCode();
      const first = issued(await exchange(code));
      clock.advance(60_000);
      await sweep();
      assert.deepEqual(await exchange(code), CODE_INVALID);
      assert.deepEqual(await refresh(first), REFRESH_FAILED);
    });

    it('a used code stays while its family lives on by rotation, past its own window: its reuse still revokes', async () => {
      const { code, family } = await issueCode();
      const tokens = [issued(await exchange(code))];
      for (const _ of [1, 2]) {
        clock.advance(10 * DAY);
        tokens.push(issued(await refresh(tokens.at(-1) ?? '')));
      }
      // The code expired 20 days ago, a refresh token's lifetime and more; the first token 6 days ago.
      await sweep();
      assert.deepEqual(await grant(code, family), { code: 1, family: 1, tokens: hashes(...tokens.slice(1)) });
      assert.deepEqual(await exchange(code), CODE_INVALID);
      assert.deepEqual(await refresh(tokens.at(-1) ?? ''), REFRESH_FAILED, 'the family was revoked');
    });

    it('a family and its used code go with its last refresh token; an unused code a refresh-token lifetime after it expired (-2010 until then)', async () => {
      const used = await issueCode();
      const unused = await issueCode();
      const start = clock.now();
      const last = issued(await exchange(used.code));
      clock.ms = start + REFRESH_TTL - 1;
      await sweep();
      assert.deepEqual(await grant(used.code, used.family), { code: 1, family: 1, tokens: hashes(last) });
      clock.advance(1);
      await sweep();
      assert.deepEqual(await grant(used.code, used.family), { code: 0, family: 0, tokens: [] });
      // Its reuse answers as before the sweep, and as an unknown code does: nothing is left to revoke.
      assert.deepEqual(await exchange(used.code), CODE_INVALID);
      assert.deepEqual(await exchange('no-such-code'), CODE_INVALID);
      clock.ms = start + CODE_TTL + REFRESH_TTL;
      await sweep();
      assert.deepEqual(await grant(unused.code, unused.family), { code: 1, family: 0, tokens: [] });
      assert.deepEqual(await exchange(unused.code), CODE_EXPIRED);
      clock.advance(1);
      await sweep();
      assert.deepEqual(await grant(unused.code, unused.family), { code: 0, family: 0, tokens: [] });
      // The one answer a deletion changes, a refresh-token lifetime after the code stopped working.
      assert.deepEqual(await exchange(unused.code), CODE_INVALID);
    });

    it('a button press goes once UPDATE_RETENTION_S (24 h) has passed, as an undelivered Update does; not before', async () => {
      const now = clock.now();
      const press = (id: string, created_at: number) => ({
        callback_id: id,
        bot_user_id: bot.bot_user_id,
        user_id: user.user_id,
        message_id: uid('m'),
        data: 'x'.repeat(4096),
        created_at,
      });
      const [old, kept] = [uid('cb'), uid('cb')];
      await k()
        .insertInto('callback_queries')
        .values([press(old, now - DAY - 1), press(kept, now - DAY)])
        .execute();
      await sweep();
      const left = k().selectFrom('callback_queries').select('callback_id').where('callback_id', 'in', [old, kept]);
      assert.deepEqual(await left.execute(), [{ callback_id: kept }]);
      const answer = (id: string) => botCall(t().app, 'answerCallbackQuery', bot.api_key, { callback_query_id: id });
      failed(await answer(old), 400, 'Bad Request: query is too old or query ID is invalid');
      assert.equal(result(await answer(kept)), true);
    });

    it("expired Updates beyond one statement's thousand go whole in one dispatcher pass, all counted, the loop turning between", async () => {
      const backlog = await createBot(t().app, user.user_id, 'backlog bot');
      // Whatever else had expired goes first: the count below is the backlog's alone.
      await t().services.dispatcher.tick();
      const dropped = await metric(t().app, 'updates_dropped_total');
      const now = clock.now();
      const update = (update_id: number, created_at: number, leased_until: number | null = null) => ({
        bot_user_id: backlog.bot_user_id,
        update_id,
        payload: '{}',
        created_at,
        attempts: 0,
        next_attempt_at: 0,
        last_error: null,
        leased_until,
      });
      const rows = Array.from({ length: 2_500 }, (_, i) => update(i + 1, now - DAY - 1 - i));
      rows.push(update(2_501, now - 2 * DAY, now + 1), update(2_502, now - DAY));
      for (let i = 0; i < rows.length; i += 500)
        await k()
          .insertInto('updates')
          .values(rows.slice(i, i + 500))
          .execute();
      let turns = 0;
      let ticking = true;
      const spin = () => {
        turns += 1;
        if (ticking) setImmediate(spin);
      };
      setImmediate(spin);
      await t().services.dispatcher.tick();
      ticking = false;
      const left = await k()
        .selectFrom('updates')
        .select('update_id')
        .where('bot_user_id', '=', backlog.bot_user_id)
        .orderBy('update_id')
        .execute();
      assert.deepEqual(left, [{ update_id: 2_501 }, { update_id: 2_502 }], 'a leased one waits for its attempt');
      assert.equal(await metric(t().app, 'updates_dropped_total'), dropped + 2_500);
      assert.ok(turns >= 2, `the event loop turned ${turns} times during the pass`);
    });
  },
  { env: { WEBHOOK_ALLOW_INSECURE: '1' } },
);

for (const store of await storesUnderTest()) {
  await describe(`retention: a sweep that fails [${store}]`, () => {
    it('rejects nothing unhandled and is tried again a minute later', async () => {
      const t = await startTestApp(store);
      // The store is closed under the running sweep: every delete fails.
      await t.close();
      const unhandled: unknown[] = [];
      const record = (e: unknown) => unhandled.push(e);
      process.on('unhandledRejection', record);
      try {
        const sweep = mock.method(t.services.retention, 'sweep');
        mock.timers.enable({ apis: ['setTimeout'] });
        t.services.retention.start();
        for (const minute of [1, 2]) {
          mock.timers.tick(60_000);
          assert.equal(sweep.mock.callCount(), minute, `a sweep in minute ${minute}`);
          await assert.rejects(sweep.mock.calls[minute - 1]?.result ?? Promise.resolve());
          // The failure is handled and the next minute's sweep scheduled a few steps later.
          await new Promise((resolve) => setImmediate(resolve));
        }
        await t.services.retention.stop();
        assert.deepEqual(unhandled, []);
      } finally {
        mock.timers.reset();
        mock.restoreAll();
        process.off('unhandledRejection', record);
      }
    });
  });
}
