// The limit of applications per account (MAX_APPS_PER_OWNER): the operator API and the developer
// site refuse the one past it with 409 app_limit_reached, racing creations included; bots are
// counted apart.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { MAX_APPS_PER_OWNER } from '../src/modules/apps/index.js';
import { adminHeaders, describeStores } from './helpers/app.js';
import { createApp, createBot, createUsers, sessionToken, type TestUser } from './helpers/factories.js';
import { pageClient } from './helpers/pages.js';

const REFUSAL = {
  error: 'app_limit_reached',
  message: `an account may own at most ${MAX_APPS_PER_OWNER} applications`,
};

await describeStores('applications per account', (t) => {
  const owner = async (): Promise<TestUser> => (await createUsers(t().app, 1))[0] ?? assert.fail('user');
  const create = (ownerUserId: string) =>
    t().app.inject({
      method: 'POST',
      url: '/internal/v1/apps',
      headers: adminHeaders,
      payload: { owner_user_id: ownerUserId, name: 'One more', redirect_uris: [] },
    });
  const fill = async (ownerUserId: string, n: number) => {
    for (let i = 0; i < n; i++) await createApp(t().app, ownerUserId);
  };

  it('the operator API refuses the application past the limit with 409; bots are counted apart', async () => {
    const user = await owner();
    await fill(user.user_id, MAX_APPS_PER_OWNER);
    const refused = await create(user.user_id);
    assert.equal(refused.statusCode, 409);
    assert.deepEqual(refused.json(), REFUSAL);
    await createBot(t().app, user.user_id, 'still allowed');
  });

  it('the developer site shows the refusal on its failure page', async () => {
    const user = await owner();
    await fill(user.user_id, MAX_APPS_PER_OWNER);
    const browser = pageClient(t().app, `op_session=${await sessionToken(t().app, user.user_id)}`);
    assert.equal((await browser.get('/developers/')).status, 200);
    const refused = await browser.post('/developers/apps', { name: 'Extra', redirect_uris: '' });
    assert.equal(refused.status, 409);
    assert.match(refused.body, new RegExp(`An account may own at most ${MAX_APPS_PER_OWNER} applications\\.`));
  });

  it('creations racing for the last place: exactly one is made', async () => {
    // A few rounds, as one race may happen to run in turn even without the lock.
    for (let round = 1; round <= 4; round++) {
      const user = await owner();
      await fill(user.user_id, MAX_APPS_PER_OWNER - 1);
      const answers = await Promise.all(Array.from({ length: 8 }, () => create(user.user_id)));
      assert.deepEqual(
        answers.map((a) => a.statusCode).sort(),
        [201, 409, 409, 409, 409, 409, 409, 409],
        `round ${round}`,
      );
      for (const a of answers.filter((r) => r.statusCode === 409)) assert.deepEqual(a.json(), REFUSAL);
    }
  });
});
