// The membership cache read on every group send keeps memberships only: a bot naming made-up groups
// (each refused before any rate limit) filled it to its cap, pinning memory and pushing real
// memberships out. Both stores.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeStores } from './helpers/app.js';
import { botCall } from './helpers/delivery.js';
import { createGroupChat } from './helpers/factories.js';

await describeStores('membership cache', (t) => {
  it('keeps the memberships group sends read, not the groups a sender is not in', async () => {
    const { bot, groupId } = await createGroupChat(t().app);
    const cache: unknown = Reflect.get(t().services.messaging, 'members');
    assert.ok(typeof cache === 'object' && cache !== null && 'size' in cache, 'the service keeps a cache with a size');
    const size = () => Number(Reflect.get(cache, 'size'));
    const before = size();
    for (let i = 0; i < 20; i++) {
      const r = await botCall(t().app, 'sendMessage', bot.api_key, {
        chat_id: `made-up-${i}`,
        chat_type: 'group',
        text: 'hi',
      });
      assert.equal((r.body as { error_code?: number }).error_code, 404, JSON.stringify(r.body));
    }
    assert.equal(size(), before, 'no entry for a group the sender is not in');
    const sent = await botCall(t().app, 'sendMessage', bot.api_key, {
      chat_id: groupId,
      chat_type: 'group',
      text: 'hi',
    });
    assert.equal((sent.body as { ok?: boolean }).ok, true, JSON.stringify(sent.body));
    assert.equal(size(), before + 1, 'the membership is kept');
  });
});
