// Crash safety (issue 13): the real server process, killed with SIGKILL in the middle of concurrent
// sends (with and without Idempotency-Key), event batches, transfers and offset polling, then
// restarted on the same store. Whatever was acknowledged is stored exactly once; what was in flight
// is either wholly there or wholly absent; Updates reach the poller without a gap and no message
// becomes two Updates; every payment order is paid exactly once and the ledger stays clean.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { boot } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { checkLedger } from '../src/modules/points/repo.js';
import { freshStore } from '../bench/lib/store.js';
import { freePort } from './helpers/process.js';
import { PG_URL, storesUnderTest } from './helpers/stores.js';

const ADMIN = 'crash-test-admin-token-0123';
const BOUNDED = { timeout: 90_000 };
/** Acknowledged sends before the kill: enough that every kind of request is under way. */
const SENDS_BEFORE_KILL = 60;
/** Payment orders of 1.00 each, issued before the load; more than the transfers before the kill. */
const ORDERS = 150;
const REDIRECT = 'https://shop.example/cb';

interface Server {
  base: string;
  process: ChildProcess;
}

/** The settings of the server under test; the test's own access to the store uses the same. */
const settings = (databaseUrl: string, dir: string) => ({
  DATABASE_URL: databaseUrl,
  ADMIN_TOKEN: ADMIN,
  KEY_FILE: join(dir, 'encryption.key'),
  RATE_LIMITS: 'off',
  LOG_LEVEL: 'silent',
});

/** Runs `fn` with the platform's services on the store (as the CLI does), then closes them. */
async function withServices<T>(
  databaseUrl: string,
  dir: string,
  fn: (s: Awaited<ReturnType<typeof boot>>['services']) => Promise<T>,
) {
  const booted = await boot(loadConfig(settings(databaseUrl, dir)));
  try {
    return await fn(booted.services);
  } finally {
    await booted.close();
  }
}

async function startServer(databaseUrl: string, dir: string): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    // At info the server logs when it listens: the test waits for that line, not on a timer.
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', ...settings(databaseUrl, dir), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stdout = child.stdout;
  const lines = createInterface({ input: stdout });
  try {
    await new Promise<void>((resolve, reject) => {
      lines.on('line', (line) => {
        if (line.includes('Server listening')) resolve();
      });
      child.once('exit', (code) => {
        reject(new Error(`server exited with ${String(code)}`));
      });
    });
  } finally {
    lines.close();
    // Request log lines from here on are read and dropped, so the pipe never fills.
    stdout.resume();
  }
  return { base: `http://127.0.0.1:${port}`, process: child };
}

async function kill(server: Server): Promise<void> {
  const exited = once(server.process, 'exit');
  server.process.kill('SIGKILL');
  await exited;
}

async function call(base: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const operator = (base: string, method: string, path: string, body?: unknown) =>
  call(base, method, path, body, { authorization: `Bearer ${ADMIN}` });

interface EventBatch {
  events: { id: string; type: string; data: Record<string, unknown> }[];
}

for (const store of await storesUnderTest()) {
  await describe(`crash safety: SIGKILL under load, restart on the same store [${store}]`, () => {
    it('nothing acknowledged is lost, nothing is stored twice', BOUNDED, async () => {
      // The store (on the test's PostgreSQL server), and a folder for the key file.
      const fresh = await freshStore(store, 'crash', PG_URL);
      const url = fresh.url;
      const dir = mkdtempSync(join(tmpdir(), 'op-crash-'));
      let server: Server | undefined;
      try {
        server = await startServer(url, dir);
        const first = server.base;
        const userIds = Array.from({ length: 4 }, (_, i) => `crash-user-${i}`);
        const made = await operator(first, 'POST', '/internal/v1/events', {
          events: userIds.map((user_id) => ({
            id: `up-${user_id}`,
            type: 'user.upserted',
            data: { user_id, name: user_id, wallet_address: `0x${randomBytes(20).toString('hex')}` },
          })),
        });
        assert.equal(made.status, 200, JSON.stringify(made.body));
        const created = await operator(first, 'POST', '/internal/v1/bots', {
          owner_user_id: userIds[0],
          name: 'crash bot',
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const bot = created.body as { bot_user_id: string; api_key: string };
        const botHeaders = { 'x-api-key': bot.api_key };

        // Payments: user 3 pays the shop's owner (user 0) through one-time tokens issued in advance
        // by the platform's payment service, as the authorize page would after the user confirmed.
        const [shopOwner, payer] = [userIds[0], userIds[3]] as [string, string];
        const credit = await operator(first, 'POST', '/internal/v1/events', {
          events: [{ id: 'credit-payer', type: 'points.credited', data: { user_id: payer, amount: '1000.00' } }],
        });
        assert.equal(credit.status, 200, JSON.stringify(credit.body));
        const shopApp = await operator(first, 'POST', '/internal/v1/apps', {
          owner_user_id: shopOwner,
          name: 'crash shop',
          redirect_uris: [REDIRECT],
        });
        assert.equal(shopApp.status, 201, JSON.stringify(shopApp.body));
        const shop = shopApp.body as { app_id: string; app_secret: string };
        const orders = await withServices(url, dir, async (s) => {
          const ref = await s.oauth.appForRedirect(shop.app_id, REDIRECT);
          assert.ok(ref !== undefined, 'the shop app is registered');
          const issued: { code: string; serial_id: string }[] = [];
          for (let i = 0; i < ORDERS; i++) {
            issued.push(
              await s.payments.authorize(ref, payer, {
                amount: '1.00',
                payer_user_id: payer,
                receiver_user_id: shopOwner,
                pay_type: 'send',
                pay_info: `order ${i}`,
              }),
            );
          }
          return issued;
        });
        const transfer = (base: string, order: { code: string; serial_id: string }) =>
          call(
            base,
            `POST`,
            `/openapi/payment/transfer?${new URLSearchParams({ app_id: shop.app_id, app_secret: shop.app_secret }).toString()}`,
            { access_token: order.code, serial_id: order.serial_id },
          );

        // What the server acknowledged, and what was in flight when it died (outcome unknown).
        const sent = new Map<string, string>(); // text → message id
        const keyedInFlight = new Set<string>(); // Idempotency-Key (also the text) of sends in flight
        const batches: { batch: EventBatch; acknowledged: boolean }[] = [];
        const polled: { id: number; message_id: string }[] = [];
        let offset = 1;
        let alive = true;
        let n = 0;
        const paid = new Set<string>(); // serials whose transfer answered "1"
        let transferInFlight: string | undefined;
        const reachedThreshold = new EventEmitter();
        const loaded = once(reachedThreshold, 'enough');

        const sender = async (keyed: boolean) => {
          while (alive) {
            const text = `${keyed ? 'k' : 'u'}-${n++}`;
            if (keyed) keyedInFlight.add(text);
            let r;
            try {
              r = await call(
                first,
                'POST',
                '/openapi/bot/sendMessage',
                { chat_id: userIds[1], chat_type: 'private', text, parse_mode: 'text' },
                { ...botHeaders, ...(keyed ? { 'idempotency-key': text } : {}) },
              );
            } catch {
              return; // the server is gone
            }
            assert.equal(r.body.ok, true, JSON.stringify(r.body));
            sent.set(text, (r.body.result as { message_id: string }).message_id);
            keyedInFlight.delete(text);
            if (sent.size === SENDS_BEFORE_KILL) reachedThreshold.emit('enough');
          }
        };
        const eventer = async () => {
          while (alive) {
            const batch: EventBatch = {
              events: Array.from({ length: 20 }, (_, i) => ({
                id: `ev-${n}-${i}-${randomBytes(3).toString('hex')}`,
                type: 'message.created',
                data: {
                  message_id: `said-${n++}-${i}`,
                  chat_type: 'private',
                  from_user_id: userIds[2],
                  to_user_id: bot.bot_user_id,
                  kind: 'text',
                  text: 'hello',
                },
              })),
            };
            const entry = { batch, acknowledged: false };
            batches.push(entry);
            let r;
            try {
              r = await operator(first, 'POST', '/internal/v1/events', batch);
            } catch {
              return; // the server is gone
            }
            assert.equal(r.status, 200, JSON.stringify(r.body));
            entry.acknowledged = true;
          }
        };
        const transferer = async () => {
          for (const order of orders) {
            if (!alive) return;
            transferInFlight = order.serial_id;
            let r;
            try {
              r = await transfer(first, order);
            } catch {
              return; // the server is gone
            }
            assert.equal(r.body.code, '1', JSON.stringify(r.body));
            paid.add(order.serial_id);
            transferInFlight = undefined;
          }
        };
        /** Follows the offset until `until()` holds and a poll comes back empty; long polls while `wait`. */
        const poller = async (base: string, until: () => boolean, wait: number) => {
          for (;;) {
            const done = until();
            const r = await call(
              base,
              'POST',
              '/openapi/bot/getUpdates',
              { offset, limit: 50, timeout: wait },
              botHeaders,
            );
            const got = r.body.result as { id: number; message: { message_id: string } }[];
            polled.push(...got.map((u) => ({ id: u.id, message_id: u.message.message_id })));
            const last = got.at(-1);
            if (last !== undefined) offset = last.id + 1;
            if (done && got.length === 0) return;
          }
        };

        const load = [sender(true), sender(false), sender(true), sender(false), eventer(), eventer(), transferer()];
        const polling = poller(first, () => !alive, 1).catch(() => undefined);
        // Killed while every loop has a request under way; a loop that stops early fails the test.
        await Promise.race([loaded, Promise.all(load).then(() => assert.fail('the load ended before the kill'))]);
        await kill(server);
        alive = false;
        await Promise.all([...load, polling]);
        assert.ok(sent.size >= SENDS_BEFORE_KILL, `${sent.size} sends acknowledged before the kill`);

        server = await startServer(url, dir);
        const second = server.base;

        // Sends: every acknowledged one exactly once in the outbox; a keyed one in flight at most once.
        const outbox: { id: string; content: string }[] = [];
        for (let cursor = '0'; ;) {
          const r = await operator(second, 'GET', `/internal/v1/messages?after=${cursor}&limit=1000`);
          const page = r.body as { messages: { id: string; content: string }[]; next_cursor: string };
          outbox.push(...page.messages);
          if (page.messages.length === 0) break;
          cursor = page.next_cursor;
        }
        const byText = new Map<string, string[]>();
        for (const m of outbox) byText.set(m.content, [...(byText.get(m.content) ?? []), m.id]);
        for (const [text, id] of sent) assert.deepEqual(byText.get(text), [id], `acknowledged send ${text}`);
        for (const text of keyedInFlight) {
          assert.ok((byText.get(text) ?? []).length <= 1, `keyed send ${text} stored at most once`);
          // Sent again with its key, it is answered from what is stored, or sent now: once either way.
          const r = await call(
            second,
            'POST',
            '/openapi/bot/sendMessage',
            { chat_id: userIds[1], chat_type: 'private', text, parse_mode: 'text' },
            { ...botHeaders, 'idempotency-key': text },
          );
          const id = (r.body.result as { message_id: string }).message_id;
          const stored = byText.get(text);
          if (stored !== undefined) assert.deepEqual([id, r.headers.get('idempotent-replayed')], [stored[0], 'true']);
        }
        for (const [text, ids] of byText) assert.equal(ids.length, 1, `${text} stored once`);

        // Event batches: acknowledged ones wholly applied; the one in flight wholly or not at all.
        for (const { batch, acknowledged } of batches) {
          const r = await operator(second, 'POST', '/internal/v1/events', batch);
          const { applied, duplicates } = r.body as { applied: number; duplicates: number };
          const size = batch.events.length;
          if (acknowledged) assert.deepEqual({ applied, duplicates }, { applied: 0, duplicates: size });
          else assert.ok(duplicates === 0 || duplicates === size, `batch in flight: ${duplicates} of ${size} applied`);
        }

        // Transfers: each acknowledged one done once (a repeat is -2016); the one in flight done at
        // most once; the rest can still be paid. Then every order is paid exactly once.
        assert.ok(paid.size > 0, 'transfers were acknowledged before the kill');
        for (const order of orders) {
          const r = await transfer(second, order);
          if (paid.has(order.serial_id)) assert.equal(r.body.code, '-2016', `acknowledged ${order.serial_id}`);
          else if (order.serial_id === transferInFlight)
            assert.ok(['1', '-2016'].includes(String(r.body.code)), 'in flight');
          else assert.equal(r.body.code, '1', `not yet sent ${order.serial_id}: ${JSON.stringify(r.body)}`);
        }
        const balance = async (userId: string) =>
          (await operator(second, 'GET', `/internal/v1/users/${userId}/balance`)).body.balance;
        assert.deepEqual(
          [await balance(payer), await balance(shopOwner)],
          [String(1000 - ORDERS), String(ORDERS)],
          'every order paid exactly once',
        );
        const ledger = await withServices(url, dir, (s) => checkLedger(s.db.k));
        assert.deepEqual(
          [
            ledger.sumOfBalancesCents,
            ledger.negativeUserAccounts,
            ledger.unbalancedTransactions,
            ledger.entriesMatchBalances,
          ],
          [0n, 0, 0, true],
          'ledger clean',
        );

        // Updates: polled from the last offset on, without a gap; each message becomes one Update.
        await poller(second, () => true, 0);
        const ids = [...new Set(polled.map((u) => u.id))].sort((a, b) => a - b);
        assert.deepEqual(
          ids,
          Array.from({ length: ids.length }, (_, i) => i + 1),
          'Update ids without a gap',
        );
        const said = new Map<string, Set<number>>();
        for (const u of polled) said.set(u.message_id, (said.get(u.message_id) ?? new Set()).add(u.id));
        for (const [messageId, updateIds] of said) assert.equal(updateIds.size, 1, `${messageId}: one Update`);
        const expected = batches.flatMap((b) => b.batch.events.map((e) => String(e.data.message_id)));
        assert.deepEqual(
          [...said.keys()].sort(),
          expected.filter((id) => said.has(id)).sort(),
          'every Update is a message that was posted',
        );
        const acknowledgedMessages = batches
          .filter((b) => b.acknowledged)
          .flatMap((b) => b.batch.events.map((e) => String(e.data.message_id)));
        for (const id of acknowledgedMessages) assert.ok(said.has(id), `acknowledged message ${id} reached the bot`);
      } finally {
        if (server !== undefined && server.process.exitCode === null) await kill(server);
        rmSync(dir, { recursive: true, force: true });
        await fresh.remove();
      }
    });
  });
}
