// `npm run bench:delivery`: event-to-bot latency by long polling and by webhook on loopback. The
// server runs in its own process. Settings: BENCH_EVENTS (events per mode, 300). The idle long
// polls and their memory are the `long-polls` case of `npm run bench`.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { callJson, pause } from './lib/http.js';
import { startServer, type ServerProcess } from './lib/spawn.js';
import { median, percentile } from './lib/stats.js';
import type { DeliveryInfo } from './servers/delivery.js';
import { runMain } from './lib/main.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 300);
const TARGETS = { p50Ms: 10, p99Ms: 50 };

async function request(port: number, path: string, body: unknown, headers: Record<string, string>): Promise<unknown> {
  return callJson(port, path, { body, headers });
}

let seq = 0;
const messageEvent = (info: DeliveryInfo, botId: string) => ({
  events: [
    {
      id: `bench-${Date.now()}-${seq++}`,
      type: 'message.created',
      data: {
        message_id: `m-${seq}`,
        chat_type: 'private',
        from_user_id: info.userId,
        to_user_id: botId,
        kind: 'text',
        text: 'ping',
      },
    },
  ],
});

async function pollLatency(server: ServerProcess, info: DeliveryInfo): Promise<number[]> {
  const bot = info.bots[0];
  if (bot === undefined) throw new Error('no bot');
  const key = { 'x-api-key': bot.api_key };
  const admin = { authorization: `Bearer ${info.adminToken}` };
  const latencies: number[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const poll = request(server.port, '/openapi/bot/getUpdates', { timeout: 10 }, key);
    await pause(5); // let the poll reach the server and wait
    const t0 = performance.now();
    let received = 0;
    const done = poll.then(() => (received = performance.now()));
    await request(server.port, '/internal/v1/events', messageEvent(info, bot.bot_user_id), admin);
    await done;
    latencies.push(received - t0);
  }
  return latencies;
}

async function webhookLatency(server: ServerProcess, info: DeliveryInfo): Promise<number[]> {
  const bot = info.bots[1];
  if (bot === undefined) throw new Error('no second bot');
  let arrived: (() => void) | undefined;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrived?.();
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = (receiver.address() as AddressInfo).port;
  const admin = { authorization: `Bearer ${info.adminToken}` };
  await request(
    server.port,
    '/openapi/bot/setWebhook',
    { url: `http://127.0.0.1:${port}/hook` },
    { 'x-api-key': bot.api_key },
  );
  const latencies: number[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const got = new Promise<number>((resolve) => {
      arrived = () => {
        resolve(performance.now());
      };
    });
    const t0 = performance.now();
    await request(server.port, '/internal/v1/events', messageEvent(info, bot.bot_user_id), admin);
    latencies.push((await got) - t0);
  }
  receiver.close();
  return latencies;
}

const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

/** Seeds a store with `bots` bots in one process, then serves it from a fresh one. */
async function serve(bots: number): Promise<{ server: ServerProcess; info: DeliveryInfo; cleanup(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-delivery-'));
  const params = {
    dir,
    bots,
    adminToken: randomBytes(24).toString('hex'),
    encryptionKey: randomBytes(32).toString('base64'),
  };
  const seeder = await startServer('delivery-seed', params);
  const info = seeder.info as DeliveryInfo;
  await seeder.stop();
  const server = await startServer('delivery', params);
  return {
    server,
    info,
    cleanup: () => {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<number> {
  const small = await serve(2);
  let poll: number[];
  let hook: number[];
  try {
    poll = await pollLatency(small.server, small.info);
    hook = await webhookLatency(small.server, small.info);
  } finally {
    await small.server.stop();
    small.cleanup();
  }
  const p99 = (v: number[]) => percentile(Float64Array.from(v).sort(), 99);
  const rows = [
    ['long poll', median(poll), p99(poll)],
    ['webhook', median(hook), p99(hook)],
  ] as const;
  const out = [
    `event-to-bot latency on loopback (${EVENTS} events each; from posting the event to the bot holding it)`,
    ...rows.map(([mode, p50, p99]) => `  ${mode.padEnd(10)} p50 ${fmt(p50)}  p99 ${fmt(p99)}`),
  ];
  const checks = [
    ...rows.flatMap(([mode, p50, p99]) => [
      { name: `${mode} p50 < ${TARGETS.p50Ms} ms`, pass: p50 < TARGETS.p50Ms },
      { name: `${mode} p99 < ${TARGETS.p99Ms} ms`, pass: p99 < TARGETS.p99Ms },
    ]),
  ];
  process.stdout.write(
    `${out.join('\n')}\n${checks.map((c) => `  ${c.pass ? 'PASS' : 'FAIL'}  ${c.name}`).join('\n')}\n`,
  );
  return checks.every((c) => c.pass) ? 0 : 1;
}

runMain(main);
