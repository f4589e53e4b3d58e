// A message to the assistant is answered in the outbox, whose inserts take a commit-order lock on
// PostgreSQL (migration 0004) held until their transaction commits. The reply was written where
// the message stood in its event batch, so the lock was held for the rest of the batch, and every
// bot's send waited behind it. It is now written last in the batch's transaction (Work.last).
// Shown without a race: while a third transaction holds the outbox's lock, a batch of a message to
// the assistant and then an upsert of user U waits at its reply, having already taken U's row; a
// second batch upserting U then waits behind it. With the reply written first, it did not.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { describePostgres } from './helpers/app.js';
import { createUsers, postEvents, uid, type TestUser } from './helpers/factories.js';
import { blockedBy, holdTransaction, tracked } from './helpers/pg-locks.js';

const ASSISTANT = '1000000000000000000';

await describePostgres("the assistant's reply is its batch's last write", (t) => {
  it(
    'holds the outbox lock only for the commit, not for the events after the message',
    { timeout: 30_000 },
    async () => {
      const { app, services: s } = t();
      const [alice, u] = (await createUsers(app, 2)) as [TestUser, TestUser];
      const upsert = (name: string) => ({
        type: 'user.upserted',
        data: { user_id: u.user_id, name, wallet_address: u.wallet_address, avatar: u.avatar },
      });
      const held = await holdTransaction(s.db.k, async (tx) => {
        await sql`select pg_advisory_xact_lock(0, 'outbox_messages'::regclass::oid::integer)`.execute(tx);
      });
      type Posted = ReturnType<typeof tracked<Awaited<ReturnType<typeof postEvents>>>>;
      let first: Posted | undefined;
      let second: Posted | undefined;
      try {
        first = tracked(
          postEvents(app, [
            {
              type: 'message.created',
              data: {
                message_id: uid('m'),
                from_user_id: alice.user_id,
                kind: 'text',
                text: '/help',
                chat_type: 'private',
                to_user_id: ASSISTANT,
              },
            },
            upsert('first'),
          ]),
        );
        assert.ok(await blockedBy(s.db.k, held.pid, first.settled), 'the batch waits for the outbox lock');
        second = tracked(postEvents(app, [upsert('second')]));
        assert.ok(
          await blockedBy(s.db.k, held.pid, second.settled, 2),
          "the second batch waits behind the first, which holds U's row: the reply came after the upsert",
        );
      } finally {
        await held.end();
      }
      const answers = await Promise.all([first.promise, second.promise]);
      assert.deepEqual(
        answers.map((a) => [a.status, a.body.refused]),
        [
          [200, []],
          [200, []],
        ],
      );
      const name = await s.db.k.selectFrom('users').select('name').where('user_id', '=', u.user_id).executeTakeFirst();
      assert.equal(name?.name, 'second');
      const replies = await s.db.k
        .selectFrom('outbox_messages')
        .select('content')
        .where('from_user_id', '=', ASSISTANT)
        .where('to_user_id', '=', alice.user_id)
        .execute();
      assert.equal(replies.length, 1, 'the reply is in the outbox');
    },
  );
});
