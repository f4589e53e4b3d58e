// Helpers for the update delivery tests: bot method calls, a webhook receiver on 127.0.0.1, a
// hook that tells when a long poll starts waiting, and the operator calls those tests need.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { App } from '../../src/http/types.js';
import type { DeliveryService } from '../../src/modules/delivery/service.js';
import { adminHeaders } from './app.js';
import { applyEvents, createBot, createUsers, uid, type BotCreds, type TestUser } from './factories.js';

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, unknown>;
}

/** Calls a bot method with its parameters as a form (JSON text for structured ones) or as JSON. */
export async function botCall(
  app: App,
  method: string,
  apiKey: string,
  params: Record<string, unknown> = {},
  as: 'form' | 'json' = 'form',
  url = `/openapi/bot/${method}`,
): Promise<Answer> {
  const headers = { 'x-api-key': apiKey };
  const res =
    as === 'json'
      ? await app.inject({ method: 'POST', url, headers, payload: params })
      : await app.inject({
          method: 'POST',
          url,
          headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams(
            Object.entries(params).map(([k, v]): [string, string] => [
              k,
              typeof v === 'string' ? v : JSON.stringify(v),
            ]),
          ).toString(),
        });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>(), headers: res.headers };
}

/** A successful envelope, exactly: returns its result. */
export function result(r: Answer, what = ''): unknown {
  assert.equal(r.status, 200, what);
  assert.deepEqual(
    { ...r.body, result: undefined },
    { ok: true, result: undefined, error_code: 0, message: 'success', success: true },
    `${what} ${JSON.stringify(r.body)}`,
  );
  return r.body.result;
}

/** An error envelope, exactly, on HTTP 200. */
export function failed(r: Answer, errorCode: number, message: string, what = ''): void {
  assert.equal(r.status, 200, `${what} ${JSON.stringify(r.body)}`);
  assert.deepEqual(r.body, { ok: false, result: null, error_code: errorCode, message, success: false }, what);
}

export interface BotUser {
  user_id: string;
  name: string;
  address: string;
  pic: string;
  is_bot: boolean;
}

export interface Chat {
  id: string;
  type: string;
  title: string;
}

/** The Message object of the bot API, as the tests read it. */
export interface Message {
  message_id: string;
  telegram_message_id: number;
  text: string;
  text_raw: string;
  kind: string;
  mention_users: BotUser[];
  from: BotUser;
  chat: Chat;
  date: number;
  reply_markup: unknown;
}

export const userView = (u: TestUser): BotUser => ({
  user_id: u.user_id,
  name: u.name,
  address: u.wallet_address,
  pic: u.avatar,
  is_bot: false,
});

export const botView = (b: BotCreds, name: string): BotUser => ({
  user_id: b.bot_user_id,
  name,
  address: b.evm_address,
  pic: '',
  is_bot: true,
});

/** Files a listen_group_messages application for the bot and approves it, as the operator. */
export async function grantListen(app: App, botUserId: string): Promise<void> {
  const filed = await app.inject({
    method: 'POST',
    url: '/internal/v1/permission-applications',
    headers: adminHeaders,
    payload: { bot_user_id: botUserId, permission: 'listen_group_messages' },
  });
  assert.equal(filed.statusCode, 201, filed.body);
  const approved = await app.inject({
    method: 'POST',
    url: `/internal/v1/permission-applications/${filed.json<{ id: string }>().id}/approve`,
    headers: adminHeaders,
  });
  assert.equal(approved.statusCode, 200, approved.body);
  assert.equal(approved.json<{ status: string }>().status, 'approved');
}

export interface Said {
  message_id: string;
}

/** A user's message as the application reports it (`message.created`); fails unless applied. */
export async function say(
  app: App,
  m: { from: string; to?: string; group?: string; kind?: string; text?: string; mentions?: string[] },
): Promise<Said> {
  const message_id = uid('m');
  await applyEvents(app, [
    {
      type: 'message.created',
      data: {
        message_id,
        from_user_id: m.from,
        kind: m.kind ?? 'text',
        ...(m.text === undefined ? {} : { text: m.text }),
        ...(m.mentions === undefined ? {} : { mention_user_ids: m.mentions }),
        ...(m.group === undefined
          ? { chat_type: 'private', to_user_id: m.to }
          : { chat_type: 'group', group_id: m.group }),
      },
    },
  ]);
  return { message_id };
}

/**
 * Resolves when the service's next long poll has found nothing and starts waiting: an Update
 * committed after that can reach the poll only by waking it. (A test hook on a private method.)
 */
export function nextWait(delivery: DeliveryService): Promise<void> {
  const d = delivery as unknown as { wait: (...args: unknown[]) => boolean };
  const original = d.wait;
  return new Promise((resolve) => {
    d.wait = function (this: unknown, ...args: unknown[]) {
      Reflect.deleteProperty(d, 'wait');
      const waiting = original.apply(this, args);
      resolve();
      return waiting;
    };
  });
}

export interface Hit {
  method: string | undefined;
  path: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Reply =
  | number
  | {
      status: number;
      headers?: Record<string, string>;
      /** The response body ('ok' by default). */
      body?: string | Buffer;
      /** Runs before the answer is sent: a slow receiver moves a fake clock here. */
      meanwhile?: () => void;
      /** Sends only this many bytes of the body, under a Content-Length for all of it, then drops the connection. */
      cut?: number;
    };

export interface Receiver {
  url: string;
  hits: Hit[];
  /** Replies for the next requests, in order; afterwards every request gets the fallback. */
  script(...replies: Reply[]): void;
  setFallback(reply: Reply): void;
  /** Resolves once `n` requests have arrived in all; rejects if they have not within `deadlineMs`. */
  received(n: number, deadlineMs?: number): Promise<Hit[]>;
  close(): Promise<void>;
}

/** A webhook receiver: a node:http server on 127.0.0.1, port 0, recording every request. */
export async function startReceiver(fallback: Reply = 200): Promise<Receiver> {
  const hits: Hit[] = [];
  const queue: Reply[] = [];
  let otherwise = fallback;
  const waiting: { n: number; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({ method: req.method, path: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() });
      const reply = queue.shift() ?? otherwise;
      const {
        status,
        headers = {},
        body = 'ok',
        meanwhile,
        cut,
      } = typeof reply === 'number' ? { status: reply } : reply;
      meanwhile?.();
      if (cut === undefined) res.writeHead(status, headers).end(body);
      else {
        const bytes = Buffer.from(body);
        res.writeHead(status, { ...headers, 'content-length': String(bytes.length) });
        // Dropped once the part is handed to the socket, so the client reads the part, then the close.
        res.write(bytes.subarray(0, cut), () => res.destroy());
      }
      for (const w of waiting.filter((x) => hits.length >= x.n)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  return {
    url: `http://127.0.0.1:${address.port}/hook`,
    hits,
    script: (...replies) => {
      queue.push(...replies);
    },
    setFallback: (reply) => {
      otherwise = reply;
    },
    received: (n, deadlineMs = 10_000) =>
      new Promise((resolve, reject) => {
        if (hits.length >= n) {
          resolve(hits);
          return;
        }
        // A deadline, not a pause: a regression then fails the test, which closes what it opened.
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(entry), 1);
          reject(new Error(`${hits.length} of ${n} webhook requests arrived within ${deadlineMs} ms`));
        }, deadlineMs);
        const entry = {
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(hits);
          },
        };
        waiting.push(entry);
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}

/** Checks the Standard Webhooks signature of a delivery against the Webhook Key. */
export function assertSigned(hit: Hit, key: string, what = ''): void {
  const id = hit.headers['webhook-id'];
  const timestamp = hit.headers['webhook-timestamp'];
  assert.equal(typeof id, 'string', what);
  assert.equal(typeof timestamp, 'string', what);
  const mac = createHmac('sha256', Buffer.from(key, 'utf8'))
    .update(`${String(id)}.${String(timestamp)}.${hit.body}`)
    .digest('base64');
  assert.equal(hit.headers['webhook-signature'], `v1,${mac}`, what);
}

/** A counter of /metrics (0 when the labelled series does not exist yet). */
export async function metric(app: App, series: string): Promise<number> {
  const res = await app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200);
  const line = res.body.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** A bot with an owner of its own (an owner may have at most five bots). */
export async function newBot(app: App, name: string): Promise<BotCreds> {
  const [owner] = await createUsers(app, 1);
  if (owner === undefined) throw new Error('no owner');
  return createBot(app, owner.user_id, name);
}
