// Cursors that never skip (issue 13): a reader following the outbox's next_cursor while many
// sends commit concurrently, on two instances sharing one store, finds every acknowledged send
// exactly once, and one following the edit feed's every acknowledged edit; and getUpdates with
// offset, followed while message events commit concurrently, gets every Update exactly once and in order.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setImmediate as yieldToIo } from 'node:timers/promises';
import type { App } from '../src/http/types.js';
import { adminHeaders, dropSchema, startTestApp, type TestApp } from './helpers/app.js';
import { botCall, result, say } from './helpers/delivery.js';
import { createBot, createUsers, uid, type BotCreds, type TestUser } from './helpers/factories.js';
import { storesUnderTest, type StoreKind } from './helpers/stores.js';

const BOUNDED = { timeout: 60_000 };
const SENDS = 400;
const EDITS = 300;
const PARALLEL = 24;

/** Runs `task(i)` for i in 0..n-1, `parallel` at a time. */
async function pool(n: number, parallel: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) await task(next++);
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/** Runs `body` on two instances of one store (a private PostgreSQL schema, or one SQLite file), then closes both. */
async function onTwoInstances(store: StoreKind, body: (a: TestApp, b: TestApp) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'op-cursor-'));
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const options = {
    encryptionKey: randomBytes(32),
    ...(store === 'sqlite' ? { sqliteFile: join(dir, 'platform.db') } : { schema }),
  };
  const first = await startTestApp(store, options);
  const second = await startTestApp(store, options);
  try {
    await body(first, second);
  } finally {
    await second.close();
    await first.close();
    rmSync(dir, { recursive: true, force: true });
    if (store === 'postgres') await dropSchema(schema);
  }
}

interface Page {
  messages: { id: string }[];
  next_cursor: string;
}

/** Follows a feed's cursor until `done()` and a last page come back empty; returns every id read. */
async function follow(app: App, done: () => boolean, feed = '/internal/v1/messages'): Promise<string[]> {
  const seen: string[] = [];
  let cursor = '0';
  for (;;) {
    const finished = done();
    const res = await app.inject({
      method: 'GET',
      url: `${feed}?after=${cursor}&limit=50`,
      headers: adminHeaders,
    });
    assert.equal(res.statusCode, 200, res.body);
    const page = res.json<Page>();
    seen.push(...page.messages.map((m) => m.id));
    cursor = page.next_cursor;
    if (finished && page.messages.length === 0) return seen;
    // SQLite answers without I/O: yield, or this loop would starve the sends it is waiting for.
    await yieldToIo();
  }
}

const exactlyOnce = (acknowledged: readonly string[], seen: readonly string[], what: string) => {
  const counts = new Map<string, number>();
  for (const id of seen) counts.set(id, (counts.get(id) ?? 0) + 1);
  const missed = acknowledged.filter((id) => !counts.has(id));
  const twice = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
  assert.deepEqual(
    { missed: missed.length, twice },
    { missed: 0, twice: [] },
    `${what}: ${missed.slice(0, 5).join(', ')}`,
  );
};

for (const store of await storesUnderTest()) {
  await describe(`cursors that never skip [${store}]`, () => {
    const itOnTwoInstances = (name: string, body: (a: TestApp, b: TestApp) => Promise<void>) =>
      it(name, BOUNDED, () => onTwoInstances(store, body));

    itOnTwoInstances(
      'a reader following next_cursor during concurrent keyed and unkeyed sends on two instances finds each acknowledged send once',
      async (a, b) => {
        const [owner, ...recipients] = (await createUsers(a.app, 5)) as [TestUser, ...TestUser[]];
        const bots: BotCreds[] = [];
        for (let i = 0; i < 4; i++) bots.push(await createBot(a.app, owner.user_id, `sender ${i}`));
        const acknowledged: string[] = [];
        let sending = true;
        const reading = follow(a.app, () => !sending);
        await pool(SENDS, PARALLEL, async (i) => {
          const bot = bots[i % bots.length] as BotCreds;
          const to = recipients[i % recipients.length] as TestUser;
          const instance = i % 2 === 0 ? a : b;
          const res = await instance.app.inject({
            method: 'POST',
            url: '/openapi/bot/sendMessage',
            headers: {
              'x-api-key': bot.api_key,
              'content-type': 'application/json',
              // Every other send is keyed: its own transaction, beside the unkeyed sends' group commit.
              ...(i % 2 === 0 ? { 'idempotency-key': uid('k') } : {}),
            },
            payload: { chat_id: to.user_id, chat_type: 'private', text: `m${i}`, parse_mode: 'text' },
          });
          const sent = result({ status: res.statusCode, body: res.json(), headers: res.headers }, `send ${i}`) as {
            message_id: string;
          };
          acknowledged.push(sent.message_id);
        });
        sending = false;
        const seen = await reading;
        assert.equal(acknowledged.length, SENDS);
        exactlyOnce(acknowledged, seen, 'outbox');
      },
    );

    itOnTwoInstances(
      'a reader following the edit feed during concurrent edits on two instances finds each acknowledged edit once',
      async (a, b) => {
        const [owner, ...recipients] = (await createUsers(a.app, 5)) as [TestUser, ...TestUser[]];
        const bots: BotCreds[] = [];
        for (let i = 0; i < 4; i++) bots.push(await createBot(a.app, owner.user_id, `editor ${i}`));
        const target = (i: number) => ({
          bot: bots[i % bots.length] as BotCreds,
          to: recipients[i % recipients.length] as TestUser,
        });
        const messages: string[] = [];
        await pool(EDITS, PARALLEL, async (i) => {
          const { bot, to } = target(i);
          const sent = result(
            await botCall(a.app, 'sendMessage', bot.api_key, {
              chat_id: to.user_id,
              chat_type: 'private',
              text: `m${i}`,
            }),
            `send ${i}`,
          ) as { message_id: string };
          messages[i] = sent.message_id;
        });
        // Each message is edited once: an edit the reader skipped would never come back with a later one.
        const acknowledged: string[] = [];
        let editing = true;
        const reading = follow(a.app, () => !editing, '/internal/v1/messages/edits');
        await pool(EDITS, PARALLEL, async (i) => {
          const { bot, to } = target(i);
          const id = messages[i] ?? '';
          const edit = { chat_id: to.user_id, chat_type: 'private', message_id: id, text: `e${i}` };
          result(await botCall((i % 2 === 0 ? a : b).app, 'editMessageText', bot.api_key, edit), `edit ${i}`);
          acknowledged.push(id);
        });
        editing = false;
        const seen = await reading;
        assert.equal(acknowledged.length, EDITS);
        exactlyOnce(acknowledged, seen, 'edits');
      },
    );

    itOnTwoInstances(
      'getUpdates with offset during concurrent message events on two instances gets each Update once, in order',
      async (a, b) => {
        const [owner, ...talkers] = (await createUsers(a.app, 9)) as [TestUser, ...TestUser[]];
        const bot = await createBot(a.app, owner.user_id, 'poller');
        const total = 240;
        const state = { saying: true };
        const ids: number[] = [];
        const polling = (async () => {
          let offset = 1;
          for (;;) {
            const finished = !state.saying;
            const got = result(await botCall(a.app, 'getUpdates', bot.api_key, { offset, limit: 7 })) as {
              id: number;
            }[];
            ids.push(...got.map((u) => u.id));
            const last = got.at(-1);
            if (last !== undefined) offset = last.id + 1;
            if (finished && got.length === 0) return;
            await yieldToIo();
          }
        })();
        await pool(total, PARALLEL, async (i) => {
          const from = talkers[i % talkers.length] as TestUser;
          await say((i % 2 === 0 ? a : b).app, { from: from.user_id, to: bot.bot_user_id, text: `u${i}` });
        });
        state.saying = false;
        await polling;
        assert.deepEqual(
          ids,
          Array.from({ length: total }, (_, i) => i + 1),
          'every Update once, in id order',
        );
      },
    );
  });
}
