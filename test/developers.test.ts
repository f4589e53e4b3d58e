// The bot administration service under the developer site and the assistant: ownership, input
// rules, resets that take effect at once (on another instance too), profile changes reaching the
// cached reads, and redelivery of failed webhook deliveries.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Work } from '../src/db/work.js';
import { AppError } from '../src/errors.js';
import { openSharedState } from '../src/lib/shared-state.js';
import { describeStores, dropSchema, FakeClock, startTestApp, type TestApp } from './helpers/app.js';
import { botCall, failed, result, say, startReceiver } from './helpers/delivery.js';
import { createBot, createUsers, signedHeaders, type TestUser } from './helpers/factories.js';
import { REDIS_URL, redisTestPrefix, redisUnderTest, storesUnderTest } from './helpers/stores.js';

const BAD_KEY = 'You X-API-KEY is not available';
const clock = new FakeClock();

/** Runs `fn` and answers the id of the AppError it threw. */
async function refusal(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof AppError) return e.detail === undefined ? e.def.id : `${e.def.id}: ${e.detail}`;
    throw e;
  }
  return assert.fail('expected a refusal');
}

await describeStores(
  'developers service',
  (t) => {
    const s = () => t().services;
    const run = <T>(fn: (w: Work) => Promise<T>) => s().work.run(fn);
    let alice: TestUser;
    let mallory: TestUser;

    before(async () => {
      [alice, mallory] = (await createUsers(t().app, 2)) as [TestUser, TestUser];
    });

    it("another developer's bot or app is unknown to them", async () => {
      const bot = await run((w) => s().developers.createBot(w, alice.user_id, { name: 'Mine' }));
      const app = await run((w) => s().developers.createApp(w, alice.user_id, { name: 'Shop', redirect_uris: [] }));
      assert.equal(await refusal(() => s().developers.bot(mallory.user_id, bot.bot_user_id)), 'unknown_bot');
      assert.equal(await refusal(() => s().developers.app(mallory.user_id, app.app_id)), 'unknown_app');
      assert.equal(
        await refusal(() => run((w) => s().developers.resetKey(w, mallory.user_id, bot.app_id, 'bot'))),
        'unknown_app',
      );
      assert.equal(
        await refusal(() => run((w) => s().developers.setPrivacy(w, mallory.user_id, bot.bot_user_id, {}))),
        'unknown_bot',
      );
      assert.equal(
        await refusal(() => run((w) => s().developers.deleteBot(w, alice.user_id, bot.bot_user_id))),
        'bot_not_deletable',
      );
      assert.equal((await s().developers.bot(alice.user_id, bot.bot_user_id)).name, 'Mine');
    });

    it('names, descriptions, avatars and redirect URIs follow the rules', async () => {
      const create = (name: string) => run((w) => s().developers.createBot(w, alice.user_id, { name }));
      assert.equal(await refusal(() => create('   ')), 'invalid_request: name: must not be empty');
      assert.equal(await refusal(() => create('x'.repeat(65))), 'invalid_request: name: at most 64 characters');
      assert.equal(await refusal(() => create('two\nlines')), 'invalid_request: name: must be one line of text');
      const bot = await create('🤖'.repeat(64));
      assert.equal(
        await refusal(() =>
          run((w) => s().developers.setProfile(w, alice.user_id, bot.bot_user_id, { avatar: 'http://x.test/a.png' })),
        ),
        'invalid_request: avatar: must start with https://',
      );
      assert.equal(
        await refusal(() =>
          run((w) => s().developers.setProfile(w, alice.user_id, bot.bot_user_id, { description: 'd'.repeat(513) })),
        ),
        'invalid_request: description: at most 512 characters',
      );
      const shop = await run((w) => s().developers.createApp(w, alice.user_id, { name: 'Shop', redirect_uris: [] }));
      const setUris = (uris: string[]) =>
        run((w) => s().developers.setRedirectUris(w, alice.user_id, shop.app_id, uris));
      assert.equal(
        await refusal(() => setUris(['https://shop.test/cb#x'])),
        'invalid_request: redirect_uris: must not contain a fragment (#)',
      );
      assert.equal(
        await refusal(() => setUris(['ftp://shop.test/cb'])),
        'invalid_request: redirect_uris: must start with https:// or http://',
      );
      assert.deepEqual(await setUris(['https://shop.test/cb', ' https://shop.test/cb ', '', 'http://127.0.0.1/cb']), [
        'http://127.0.0.1/cb',
        'https://shop.test/cb',
      ]);
      assert.deepEqual((await s().developers.app(alice.user_id, shop.app_id)).redirect_uris, [
        'http://127.0.0.1/cb',
        'https://shop.test/cb',
      ]);
    });

    it('a profile change reaches getMe and the cached user info at once', async () => {
      const [owner] = await createUsers(t().app, 1);
      assert.ok(owner !== undefined, 'owner');
      const bot = await createBot(t().app, owner.user_id, 'Before');
      const info = async () => {
        const res = await t().app.inject({
          method: 'GET',
          url: `/openapi/user/info?user_id=${bot.bot_user_id}`,
          headers: { 'x-api-key': bot.api_key },
        });
        assert.equal(res.statusCode, 200, res.body);
        return res.json<{ data: { name: string; avatar: string } }>().data;
      };
      assert.equal((await info()).name, 'Before');
      await run((w) =>
        s().developers.setProfile(w, owner.user_id, bot.bot_user_id, {
          name: 'After',
          avatar: 'https://cdn.test/a.png',
          description: 'New words',
        }),
      );
      const changed = await info();
      assert.deepEqual([changed.name, changed.avatar], ['After', 'https://cdn.test/a.png']);
      assert.equal((result(await botCall(t().app, 'getMe', bot.api_key)) as { name: string }).name, 'After');
      const view = await s().developers.bot(owner.user_id, bot.bot_user_id);
      assert.equal(view.description, 'New words');
      assert.equal((await s().developers.overview(owner.user_id))[0]?.name, 'After');
    });

    it('a secret reset stops signatures made with the old secret at once', async () => {
      const [owner] = await createUsers(t().app, 1);
      assert.ok(owner !== undefined, 'owner');
      const bot = await createBot(t().app, owner.user_id, 'Signer');
      const signed = (secret: string) =>
        t().app.inject({
          method: 'GET',
          url: `/openapi/user/info?user_id=${owner.user_id}`,
          headers: signedHeaders(bot, { secret, now: clock.now() }),
        });
      assert.equal((await signed(bot.app_secret)).statusCode, 200);
      const secret = await run((w) => s().developers.resetSecret(w, owner.user_id, bot.app_id, 'bot'));
      const old = await signed(bot.app_secret);
      assert.equal(old.statusCode, 401, old.body);
      assert.equal((await signed(secret)).statusCode, 200);
    });

    it('a secret reset stops token grants and transfers made with the old secret at once', async () => {
      const [owner] = await createUsers(t().app, 1);
      assert.ok(owner !== undefined, 'owner');
      const app = await run((w) => s().developers.createApp(w, owner.user_id, { name: 'Till', redirect_uris: [] }));
      const { oauth } = s();
      assert.equal(await oauth.checkApp(app.app_id, app.app_secret), true, 'the secret, now cached');
      assert.equal(await oauth.checkApp(app.app_id, `${app.app_secret.slice(0, -1)}x`), false, 'one character off');
      const secret = await run((w) => s().developers.resetSecret(w, owner.user_id, app.app_id, 'app'));
      assert.equal(await oauth.checkApp(app.app_id, app.app_secret), false, 'the old secret');
      assert.equal(await oauth.checkApp(app.app_id, secret), true, 'the new secret');
    });

    it('an App Key that spells an app id does not make that app unknown to its secret', async () => {
      const [owner] = await createUsers(t().app, 1);
      assert.ok(owner !== undefined, 'owner');
      const app = await run((w) => s().developers.createApp(w, owner.user_id, { name: 'Twin', redirect_uris: [] }));
      for (const key of [app.app_id, `app_id ${app.app_id}`]) {
        failed(await botCall(t().app, 'getMe', key), 400, BAD_KEY, `${key} as a key is unknown`);
      }
      assert.equal(await s().oauth.checkApp(app.app_id, app.app_secret), true);
    });

    it('a failed delivery is redelivered now, and again after its Update expired; delivered ones are not', async () => {
      const [owner, fan] = await createUsers(t().app, 2);
      assert.ok(owner !== undefined && fan !== undefined, 'users');
      const bot = await createBot(t().app, owner.user_id, 'Hooked');
      const receiver = await startReceiver(500);
      try {
        const url = await s().delivery.vet(receiver.url);
        await run((w) => s().developers.setWebhook(w, owner.user_id, bot.bot_user_id, url));
        await say(t().app, { from: fan.user_id, to: bot.bot_user_id, text: 'hello' });
        assert.equal(await s().dispatcher.tick(), 1);
        const [failedOne] = await s().developers.deliveries(owner.user_id, bot.bot_user_id);
        assert.ok(failedOne !== undefined, 'a delivery is logged');
        assert.deepEqual(
          { state: failedOne.state, status: failedOne.status_code, error: failedOne.error, attempt: failedOne.attempt },
          { state: 'failed', status: 500, error: 'HTTP 500', attempt: 1 },
        );
        // Without a redelivery the retry waits for its backoff.
        assert.equal(await s().dispatcher.tick(), 0);
        receiver.setFallback(200);
        await run((w) => s().developers.redeliver(w, owner.user_id, bot.bot_user_id, failedOne.id));
        assert.equal(await s().dispatcher.tick(), 1);
        const log = await s().developers.deliveries(owner.user_id, bot.bot_user_id);
        assert.deepEqual(
          log.map((d) => [d.attempt, d.state]),
          [
            [2, 'delivered'],
            [1, 'redelivered'],
          ],
        );
        assert.equal(
          await refusal(() => run((w) => s().developers.redeliver(w, owner.user_id, bot.bot_user_id, failedOne.id))),
          'delivery_not_failed',
        );
        assert.equal(
          await refusal(() => run((w) => s().developers.redeliver(w, owner.user_id, bot.bot_user_id, 999_999_999))),
          'unknown_delivery',
        );

        // A delivery that kept failing until its Update expired is queued again from its copy.
        receiver.setFallback(503);
        await say(t().app, { from: fan.user_id, to: bot.bot_user_id, text: 'lost' });
        assert.equal(await s().dispatcher.tick(), 1);
        const [lost] = await s().developers.deliveries(owner.user_id, bot.bot_user_id);
        assert.ok(lost?.state === 'failed', 'the second Update failed');
        clock.advance(25 * 3600 * 1000);
        assert.equal(await s().dispatcher.tick(), 0, 'the Update expired');
        receiver.setFallback(200);
        await run((w) => s().developers.redeliver(w, owner.user_id, bot.bot_user_id, lost.id));
        assert.equal(await s().dispatcher.tick(), 1);
        const body = JSON.parse(receiver.hits.at(-1)?.body ?? '{}') as { message?: { text?: string } };
        assert.equal(body.message?.text, 'lost');

        await run((w) => s().developers.clearWebhook(w, owner.user_id, bot.bot_user_id));
        assert.equal(
          await refusal(() => run((w) => s().developers.redeliver(w, owner.user_id, bot.bot_user_id, lost.id))),
          'delivery_not_failed',
        );
        assert.equal((await s().developers.bot(owner.user_id, bot.bot_user_id)).mode, 'polling');
      } finally {
        await receiver.close();
      }
    });
  },
  { clock, env: { WEBHOOK_ALLOW_INSECURE: '1' } },
);

const ready =
  (await storesUnderTest()).includes('postgres') && (await redisUnderTest('the cross-instance key reset test'));

await describe('a key reset reaches another instance at once (PostgreSQL + Redis)', () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const encryptionKey = randomBytes(32);
  let a: TestApp | undefined;
  let b: TestApp | undefined;
  before(async () => {
    if (!ready) return;
    const prefix = redisTestPrefix();
    a = await startTestApp('postgres', { schema, encryptionKey, shared: await openSharedState(REDIS_URL, { prefix }) });
    b = await startTestApp('postgres', { schema, encryptionKey, shared: await openSharedState(REDIS_URL, { prefix }) });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    if (ready) await dropSchema(schema);
  });

  it('the old App Key fails on the other instance, which had it cached', { skip: !ready }, async () => {
    if (a === undefined || b === undefined) throw new Error('instances not started');
    const [owner] = await createUsers(a.app, 1);
    assert.ok(owner !== undefined, 'owner');
    const bot = await createBot(a.app, owner.user_id, 'Shared');
    result(await botCall(b.app, 'getMe', bot.api_key), 'cached on B');
    // The announcement travels over Redis; B answers from its cache until it arrives, so the test
    // waits for it (B's own listener, subscribed first, has dropped the entry by then).
    const announced = new Promise<void>((resolve) => {
      b?.services.shared.bus.subscribe('cache:changed', (message) => {
        if (message.includes(bot.app_id)) resolve();
      });
    });
    const { developers } = a.services;
    const fresh = await a.services.work.run((w) => developers.resetKey(w, owner.user_id, bot.app_id, 'bot'));
    await announced;
    failed(await botCall(b.app, 'getMe', bot.api_key), 400, BAD_KEY, 'old key on B');
    result(await botCall(b.app, 'getMe', fresh), 'new key on B');
  });
});
