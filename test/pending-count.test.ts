// getWebhookInfo's pending_update_count counts a bot's Updates not yet expired. In one statement
// with both conditions SQLite read every row of the table (48 ms at 100,000 pending for one bot,
// on the one thread, at every call); it is now all of the bot's Updates through its unique index,
// which covers the count, less its expired ones through the created_at index.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pendingCount } from '../src/modules/delivery/repo.js';
import { withPlannedStore } from './helpers/query-plans.js';

const NOT_BEFORE = 10_000;

await describe('pending_update_count [sqlite]', () => {
  it("counts the bot's Updates not yet expired, each count served by an index", async () => {
    await withPlannedStore('pending-count', async ({ k, run, plan }) => {
      const row = (bot: string, updateId: number, createdAt: number) => ({
        bot_user_id: bot,
        update_id: updateId,
        payload: '{}',
        created_at: createdAt,
        attempts: 0,
        next_attempt_at: 0,
      });
      await k
        .insertInto('updates')
        .values([
          // Expired, not yet swept: not counted.
          row('bot', 1, NOT_BEFORE - 2),
          row('bot', 2, NOT_BEFORE - 1),
          row('bot', 3, NOT_BEFORE),
          row('bot', 4, NOT_BEFORE + 5),
          row('bot', 5, NOT_BEFORE + 9),
          row('other', 1, NOT_BEFORE - 1),
          row('other', 2, NOT_BEFORE + 1),
        ])
        .execute();
      run.length = 0;
      assert.equal(await pendingCount(k, 'bot', NOT_BEFORE), 3);
      assert.equal(await pendingCount(k, 'other', NOT_BEFORE), 1);
      assert.equal(await pendingCount(k, 'nobody', NOT_BEFORE), 0);
      const [all, expired] = run;
      assert.ok(all !== undefined && expired !== undefined, 'two statements');
      assert.deepEqual(await plan(all), [
        'SEARCH updates USING COVERING INDEX sqlite_autoindex_updates_1 (bot_user_id=?)',
      ]);
      assert.deepEqual(await plan(expired), ['SEARCH updates USING INDEX updates_created (created_at<?)']);
    });
  });
});
