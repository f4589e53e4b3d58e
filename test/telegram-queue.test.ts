// Property (issue 16, telegram-api.md "Objects"): the native surface and /telegram read one queue.
// Random sequences of users' messages to a bot, read alternately through /openapi/bot/getUpdates
// and /telegram/bot<token>/getUpdates with offsets: each batch read on one surface is the same
// batch on the other (same update_id, same message), in order, nothing skipped or duplicated.
// An offset beyond the ids given out confirms nothing on either surface.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { describeStores } from './helpers/app.js';
import { createUsers, type TestUser } from './helpers/factories.js';
import { botCall, newBot, result, say } from './helpers/delivery.js';
import { messageNumber } from './helpers/message-numbers.js';
import * as telegram from '../src/modules/telegram/repo.js';

interface NativeUpdate {
  update_id: number;
  message: { message_id: string; telegram_message_id: number; text: string };
}

interface TelegramUpdate {
  update_id: number;
  message: { message_id: number; text: string };
}

/** What both surfaces must agree on: the update's id, its message's two ids and its text. */
interface Seen {
  updateId: number;
  messageId: string;
  number: number;
  text: string;
}

type Step = { say: number } | { read: 'native' | 'telegram'; limit: number };

const steps = fc.array(
  fc.oneof(
    fc.record({ say: fc.integer({ min: 1, max: 3 }) }),
    fc.record({ read: fc.constantFrom('native' as const, 'telegram' as const), limit: fc.integer({ min: 1, max: 4 }) }),
  ),
  { minLength: 1, maxLength: 12 },
);

await describeStores('one update queue behind both bot surfaces', (t) => {
  let alice: TestUser;

  it('builds a user', async () => {
    [alice] = (await createUsers(t().app, 1)) as [TestUser];
  });

  it('any interleaving of messages and reads sees the same updates, in order, on both surfaces', async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (plan: Step[]) => {
        const bot = await newBot(t().app, 'queue bot');
        const id = await telegram.telegramIdOf(t().services.db.k, bot.bot_user_id);
        assert.ok(id !== undefined, 'the bot has a number');
        const token = `${id}:${bot.api_key}`;

        const native = async (offset: number, limit: number): Promise<Seen[]> =>
          (
            result(await botCall(t().app, 'getUpdates', bot.api_key, { offset, limit }), 'native') as NativeUpdate[]
          ).map((u) => ({
            updateId: u.update_id,
            messageId: u.message.message_id,
            number: u.message.telegram_message_id,
            text: u.message.text,
          }));
        const viaTelegram = async (offset: number, limit: number): Promise<Seen[]> => {
          const r = await t().app.inject({
            method: 'GET',
            url: `/telegram/bot${token}/getUpdates?offset=${offset}&limit=${limit}&timeout=0`,
          });
          assert.equal(r.statusCode, 200, r.body);
          const body = r.json<{ ok: boolean; result: TelegramUpdate[] }>();
          assert.equal(body.ok, true, r.body);
          const byNumber = new Map(sent.map((s) => [s.number, s.messageId]));
          return body.result.map((u) => ({
            updateId: u.update_id,
            messageId: byNumber.get(u.message.message_id) ?? `unknown number ${u.message.message_id}`,
            number: u.message.message_id,
            text: u.message.text,
          }));
        };

        // The model: every message sent, in order; the update ids the bot has confirmed.
        const sent: Omit<Seen, 'updateId'>[] = [];
        let confirmed = 0;
        for (const step of plan) {
          if ('say' in step) {
            for (let i = 0; i < step.say; i++) {
              const text = `m${sent.length + 1}`;
              const said = await say(t().app, { from: alice.user_id, to: bot.bot_user_id, text });
              sent.push({
                messageId: said.message_id,
                number: await messageNumber(t().services, said.message_id),
                text,
              });
            }
            continue;
          }
          const [first, second] = step.read === 'native' ? [native, viaTelegram] : [viaTelegram, native];
          const offset = confirmed + 1;
          const read = await first(offset, step.limit);
          const expected = sent
            .slice(confirmed, confirmed + step.limit)
            .map((m, i) => ({ updateId: confirmed + 1 + i, ...m }));
          assert.deepEqual(read, expected, `${step.read} read at offset ${offset}`);
          // The same offset on the other surface shows the same batch: nothing was consumed twice or lost.
          assert.deepEqual(await second(offset, step.limit), expected, `other surface at offset ${offset}`);
          confirmed += read.length;
        }
        // Whatever remains is still there, on both surfaces.
        const rest = sent.slice(confirmed).map((m, i) => ({ updateId: confirmed + 1 + i, ...m }));
        assert.deepEqual(await native(confirmed + 1, 100), rest, 'native remainder');
        assert.deepEqual(await viaTelegram(confirmed + 1, 100), rest, 'telegram remainder');
      }),
      { numRuns: 15 },
    );
  });

  it('an offset beyond the next update id confirms nothing, on both surfaces, and reads from the oldest', async () => {
    const bot = await newBot(t().app, 'far offset bot');
    const token = `${await telegram.telegramIdOf(t().services.db.k, bot.bot_user_id)}:${bot.api_key}`;
    /** Both surfaces' Updates as [update_id, text]. */
    const seen = (updates: unknown) =>
      (updates as { update_id: number; message: { text: string } }[]).map((u) => [u.update_id, u.message.text]);
    const viaTelegram = async (offset: number) => {
      const r = await t().app.inject({ method: 'GET', url: `/telegram/bot${token}/getUpdates?offset=${offset}` });
      assert.equal(r.statusCode, 200, r.body);
      return seen(r.json<{ result: unknown }>().result);
    };
    const native = async (offset: number) =>
      seen(result(await botCall(t().app, 'getUpdates', bot.api_key, { offset })));
    // A bot that kept Telegram's saved offset, with nothing given out here yet.
    const far = 900_000_001;
    assert.deepEqual(await viaTelegram(far), []);
    assert.deepEqual(await native(far), []);
    await say(t().app, { from: alice.user_id, to: bot.bot_user_id, text: 'one' });
    await say(t().app, { from: alice.user_id, to: bot.bot_user_id, text: 'two' });
    const both = [
      [1, 'one'],
      [2, 'two'],
    ];
    assert.deepEqual(await viaTelegram(far), both, 'telegram: new updates are not hidden behind the offset');
    assert.deepEqual(await native(far), both, 'native: nothing was confirmed, and this call confirms nothing either');
    assert.deepEqual(await viaTelegram(far), both, 'still pending: not the at-most-once mode of no offset');
    // The next id the bot would give out (3) is not beyond: it confirms 1 and 2 as before.
    assert.deepEqual(await native(3), []);
    assert.deepEqual(await viaTelegram(1), [], 'confirmed by offset 3');
  });
});
