// A broadcast to more followers than one page of them (messaging/service.ts sendToFans), and a
// bot's mention of every member of a group: flagged to the operator's outbox (mention_all), read
// only once the send is admitted.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeStores } from './helpers/app.js';
import { botCall, failed, newBot, result, userView, type Message } from './helpers/delivery.js';
import {
  applyEvents,
  applyForPermission,
  approveApplication,
  createUsers,
  uid,
  type TestUser,
} from './helpers/factories.js';
import { watchOutbox } from './helpers/outbox.js';
import { link } from './helpers/richtext.js';

/** More than the 1,000 followers a broadcast reads and writes at a time. */
const FANS = 2300;
const RICH = `News: ${link('read more', 'https://news.example/1')} ${'x'.repeat(2000)}`;

await describeStores('sendMessageToFans in pages, and mention_type 1', (t) => {
  it('sends to every follower, past a page of them: one row each, in following order, the same content', async () => {
    const bot = await newBot(t().app, 'broadcaster');
    const granted = await applyForPermission(t().app, bot.bot_user_id, 'subscription_account');
    assert.equal(await approveApplication(t().app, granted.id), 'approved');
    const fans: TestUser[] = [];
    for (let i = 0; i < FANS; i += 1000) fans.push(...(await createUsers(t().app, Math.min(1000, FANS - i))));
    for (let i = 0; i < FANS; i += 1000) {
      await applyEvents(
        t().app,
        fans.slice(i, i + 1000).map((u) => ({
          type: 'follow.created',
          data: { follower_id: u.user_id, followed_id: bot.bot_user_id },
        })),
      );
    }
    const w = await watchOutbox(t().app);
    assert.deepEqual(result(await botCall(t().app, 'sendMessageToFans', bot.api_key, { text: RICH })), {
      sent: FANS,
    });
    const sent = await w.added();
    assert.deepEqual(
      sent.map(({ id, to_user_id, created_at, ...r }) => {
        assert.equal(typeof id, 'string');
        assert.equal(typeof created_at, 'string');
        return { to_user_id, ...r };
      }),
      fans.map((u) => ({
        chat_type: 'private',
        to_user_id: u.user_id,
        from_user_id: bot.bot_user_id,
        object_name: 'richtext',
        content: RICH,
        mention_user_ids: [],
      })),
    );
    assert.equal(new Set(sent.map((m) => m.id)).size, FANS);
    const rows = await t()
      .services.db.k.selectFrom('outbox_messages')
      .select(['normalized', 'telegram_message_id'])
      .where('from_user_id', '=', bot.bot_user_id)
      .execute();
    assert.equal(rows.length, FANS);
    assert.equal(new Set(rows.map((r) => r.normalized)).size, 1);
    assert.equal(new Set(rows.map((r) => r.telegram_message_id)).size, FANS);
    // A repeat under a key answers the count, and sends nothing more.
    const key = uid('idem');
    const keyed = () =>
      t().app.inject({
        method: 'POST',
        url: '/openapi/bot/sendMessageToFans',
        headers: { 'x-api-key': bot.api_key, 'idempotency-key': key },
        payload: { text: 'once' },
      });
    const first = await keyed();
    const again = await keyed();
    for (const r of [first, again]) {
      assert.equal(r.statusCode, 200);
      assert.deepEqual(r.json(), {
        ok: true,
        result: { sent: FANS },
        error_code: 0,
        message: 'success',
        success: true,
      });
    }
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal((await w.added()).length, FANS);
  });

  it('flags a mention of every member to the outbox, and reads no member for a sender outside the group', async () => {
    const bot = await newBot(t().app, 'announcer');
    const outsider = await newBot(t().app, 'outsider');
    const members = await createUsers(t().app, 3);
    const group = uid('g');
    await applyEvents(t().app, [
      { type: 'group.upserted', data: { group_id: group, name: 'all', invite_url: `https://chat.example/${group}` } },
      ...[bot.bot_user_id, ...members.map((u) => u.user_id)].map((user_id) => ({
        type: 'group.member.joined',
        data: { group_id: group, user_id },
      })),
    ]);
    const w = await watchOutbox(t().app);
    const everyone = result(
      await botCall(t().app, 'sendMessage', bot.api_key, { chat_id: group, text: 'all', mention_type: 1 }),
    ) as Message;
    const [first] = members as [TestUser];
    const some = result(
      await botCall(t().app, 'sendMessage', bot.api_key, {
        chat_id: group,
        text: 'some',
        mention_type: 2,
        mention_ids: JSON.stringify([first.user_id]),
      }),
    ) as Message;
    // The Message's mention_users as before: the members, in joining order.
    assert.deepEqual(
      everyone.mention_users.map((u) => u.user_id),
      [bot.bot_user_id, ...members.map((u) => u.user_id)],
    );
    assert.deepEqual(some.mention_users, [userView(first)]);
    const added = await w.added();
    assert.deepEqual(
      added.map((m) => [m.id, m.mention_user_ids, m.mention_all]),
      [
        [everyone.message_id, [bot.bot_user_id, ...members.map((u) => u.user_id)], true],
        [some.message_id, [first.user_id], undefined],
      ],
    );
    assert.equal('mention_all' in (added[1] ?? {}), false);
    // Refused by its membership: the same answer as any send of a non-member, nothing stored.
    failed(
      await botCall(t().app, 'sendMessage', outsider.api_key, { chat_id: group, text: 'all', mention_type: 1 }),
      403,
      'the sender is not a member of this group',
    );
    assert.deepEqual(await w.added(), []);
  });
});
