// A batch of messages whose Updates outgrow one insert: every payload copies its message and the
// users it mentions, so the run's Updates go to the store in slices (delivery/fanout.ts), in the
// run's one transaction, with the ids and order one insert would give.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { describeStores, type TestApp } from './helpers/app.js';
import { grantListen, newBot } from './helpers/delivery.js';
import { applyEvents, createUsers, postEvents, uid } from './helpers/factories.js';

/** fanout.ts's bounds of one insert: payload characters (at most twice as many in its JSON), Updates. */
const CHUNK_PAYLOAD_CHARS = 4 * 1024 * 1024;
const CHUNK_UPDATES = 5000;

interface Stored {
  update: { update_id: number; message: { message_id: string; mention_users: { user_id: string }[] } };
  flat: { to_user_id: string; mention_users: string };
}

/** A group with `bots` listening bots and a sender; the users a message may mention. */
async function scene(t: TestApp, bots: number, mentionable: number) {
  const [sender] = await createUsers(t.app, 1);
  if (sender === undefined) throw new Error('no sender');
  const others = mentionable === 0 ? [] : await createUsers(t.app, mentionable);
  const groupId = uid('g');
  const listening = [];
  for (let i = 0; i < bots; i++) listening.push(await newBot(t.app, `listener ${i}`));
  await applyEvents(t.app, [
    { type: 'group.upserted', data: { group_id: groupId, name: 'big', invite_url: `https://chat.example/${groupId}` } },
    ...[sender.user_id, ...listening.map((b) => b.bot_user_id)].map((user_id) => ({
      type: 'group.member.joined',
      data: { group_id: groupId, user_id },
    })),
  ]);
  for (const b of listening) await grantListen(t.app, b.bot_user_id);
  const botIds = listening.map((b) => b.bot_user_id).sort();
  return { sender: sender.user_id, groupId, botIds, mentionable: others.map((u) => u.user_id) };
}

/** Each bot's Updates, by id. */
async function updatesOf(t: TestApp, botId: string) {
  const rows = await t.services.db.k
    .selectFrom('updates')
    .select(['update_id', 'payload'])
    .where('bot_user_id', '=', botId)
    .orderBy('update_id')
    .execute();
  return rows.map((r) => ({ id: r.update_id, payload: JSON.parse(r.payload) as Stored }));
}

/** Posts `messages` as one batch and checks every bot got one Update per message, ids 1.. in batch order. */
async function sendAndCheck(
  t: TestApp,
  s: Awaited<ReturnType<typeof scene>>,
  messages: number,
  mentions: readonly string[],
) {
  const ids = Array.from({ length: messages }, () => uid('m'));
  const r = await postEvents(
    t.app,
    ids.map((message_id) => ({
      type: 'message.created',
      data: {
        message_id,
        chat_type: 'group',
        group_id: s.groupId,
        from_user_id: s.sender,
        kind: 'text',
        text: 'hello everyone',
        mention_user_ids: [...mentions],
      },
    })),
  );
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { applied: messages, duplicates: 0, refused: [] });
  for (const bot of s.botIds) {
    const got = await updatesOf(t, bot);
    assert.deepEqual(
      got.map((u) => [
        u.id,
        u.payload.update.update_id,
        u.payload.update.message.message_id,
        u.payload.flat.to_user_id,
      ]),
      ids.map((m, i) => [i + 1, i + 1, m, bot]),
    );
    for (const u of got) {
      assert.deepEqual(
        u.payload.update.message.mention_users.map((m) => m.user_id),
        mentions,
      );
      assert.equal(u.payload.flat.mention_users, mentions.join(','));
    }
  }
  // Within a message every bot's copy is the same message.
  const first = await updatesOf(t, s.botIds[0] ?? '');
  for (const bot of s.botIds.slice(1)) {
    assert.deepEqual(
      (await updatesOf(t, bot)).map((u) => u.payload.update.message),
      first.map((u) => u.payload.update.message),
    );
  }
  return { total: messages * s.botIds.length };
}

/**
 * On PostgreSQL each statement of a transaction has its own command id (cmin on the rows it
 * inserts): the slices the Updates went in, each within the bounds.
 */
async function slices(t: TestApp): Promise<{ n: number; chars: number }[]> {
  const rows = await sql<{ n: string; chars: string }>`
    SELECT count(*) AS n, sum(length(payload)) AS chars FROM updates GROUP BY cmin::text ORDER BY min(update_id)`.execute(
    t.services.db.k,
  );
  return rows.rows.map((r) => ({ n: Number(r.n), chars: Number(r.chars) }));
}

await describeStores('a batch whose Updates outgrow one insert', (t) => {
  it('stores every Update of a batch of large payloads, with the ids and order of one insert', async () => {
    const s = await scene(t(), 3, 1000);
    // ~150,000 characters an Update: 40 messages to 3 bots are about 18 Mi characters.
    const { total } = await sendAndCheck(t(), s, 40, s.mentionable);
    assert.equal(total, 120);
    if (t().store === 'postgres') {
      const parts = await slices(t());
      assert.ok(parts.length > 1, `one insert took ${JSON.stringify(parts)}`);
      assert.equal(
        parts.reduce((a, p) => a + p.n, 0),
        total,
      );
      for (const p of parts) assert.ok(p.chars <= CHUNK_PAYLOAD_CHARS, `a slice of ${p.chars} characters`);
    }
  });

  it('stores a batch of more Updates than one slice holds', async () => {
    await t().services.db.k.deleteFrom('updates').execute();
    const s = await scene(t(), 6, 0);
    const { total } = await sendAndCheck(t(), s, 1000, []);
    assert.ok(total > CHUNK_UPDATES, `${total} Updates fit one slice`);
    if (t().store === 'postgres') {
      const parts = await slices(t());
      assert.deepEqual(
        parts.map((p) => p.n),
        [CHUNK_UPDATES, total - CHUNK_UPDATES],
      );
    }
  });
});
