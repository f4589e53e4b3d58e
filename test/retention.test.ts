// The retention sweep (src/modules/retention/): each table it prunes loses a row the moment its
// window has passed, as the rows' readers see it, and keeps it until then; a sweep that fails
// leaves the process running and sweeps again a minute later.
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { sha256Hex } from '../src/lib/crypto.js';
import { ADMIN_TOKEN, describeStoresOnFakeClock, startTestApp } from './helpers/app.js';
import { botCall, result, say, startReceiver } from './helpers/delivery.js';
import {
  applyEvents,
  createBot,
  createUsers,
  sessionToken,
  uid,
  type BotCreds,
  type TestUser,
} from './helpers/factories.js';
import { ACCEPTED, GROUP_SEND } from './helpers/outbox.js';
import { pageClient } from './helpers/pages.js';
import { storesUnderTest } from './helpers/stores.js';

const HOUR = 3600 * 1000;

await describeStoresOnFakeClock(
  'retention: the sweep deletes what has outlived its window, and nothing else',
  (t, clock) => {
    let user: TestUser;
    let bot: BotCreds;
    const group = uid('g');
    const k = () => t().services.db.k;
    const sweep = () => t().services.retention.sweep();
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
