// `npm run bench:delivery`: event-to-bot latency by long polling and by webhook on loopback, and
// 10,000 idle long polls held by one process with its memory. The server runs in its own process.
// Settings: BENCH_EVENTS (events per mode, 300), BENCH_POLLS (idle polls, 10000).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { startServer, type ServerProcess } from './lib/spawn.js';
import { median, percentile } from './lib/stats.js';
import type { DeliveryInfo } from './servers/delivery.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 300);
const POLLS = Number(process.env.BENCH_POLLS ?? 10_000);
const TARGETS = { p50Ms: 10, p99Ms: 50, memoryMb: 300 };

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

function request(port: number, path: string, body: unknown, headers: Record<string, string>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: { ...headers, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          try {
            resolve(JSON.parse(text));
          } catch (e) {
            reject(e instanceof Error ? e : new Error(String(e)));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
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

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

async function longPolls(server: ServerProcess, info: DeliveryInfo): Promise<{ before: number; held: number }> {
  try {
    const before = await server.rss();
    const pollAgent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const requests = info.bots.map((b) => {
      const req = http.request({
        host: '127.0.0.1',
        port: server.port,
        path: '/openapi/bot/getUpdates',
        method: 'POST',
        agent: pollAgent,
        headers: { 'x-api-key': b.api_key, 'content-type': 'application/json' },
      });
      req.on('error', () => undefined);
      req.end(JSON.stringify({ timeout: 50 }));
      return req;
    });
    // Wait until the server holds every poll (its long_polls gauge).
    for (;;) {
      const metrics = await new Promise<string>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: server.port, path: '/metrics', agent }, (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => {
              resolve(text);
            });
          })
          .on('error', reject);
      });
      const held = Number(/^long_polls (\d+)/m.exec(metrics)?.[1] ?? 0);
      if (held >= info.bots.length) break;
      await pause(250);
    }
    const held = await server.rss();
    for (const r of requests) r.destroy();
    return { before, held };
  } finally {
    await server.stop();
  }
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
  const large = await serve(POLLS);
  const mem = await longPolls(large.server, large.info).finally(() => {
    large.cleanup();
  });
  const p99 = (v: number[]) => percentile(Float64Array.from(v).sort(), 99);
  const rows = [
    ['long poll', median(poll), p99(poll)],
    ['webhook', median(hook), p99(hook)],
  ] as const;
  const out = [
    `event-to-bot latency on loopback (${EVENTS} events each; from posting the event to the bot holding it)`,
    ...rows.map(([mode, p50, p99]) => `  ${mode.padEnd(10)} p50 ${fmt(p50)}  p99 ${fmt(p99)}`),
    `${POLLS} idle long polls held by one server process: RSS ${(mem.before / 2 ** 20).toFixed(0)} MB before, ${(mem.held / 2 ** 20).toFixed(0)} MB with the polls held`,
  ];
  const checks = [
    ...rows.flatMap(([mode, p50, p99]) => [
      { name: `${mode} p50 < ${TARGETS.p50Ms} ms`, pass: p50 < TARGETS.p50Ms },
      { name: `${mode} p99 < ${TARGETS.p99Ms} ms`, pass: p99 < TARGETS.p99Ms },
    ]),
    { name: `memory with ${POLLS} polls < ${TARGETS.memoryMb} MB`, pass: mem.held / 2 ** 20 < TARGETS.memoryMb },
  ];
  process.stdout.write(
    `${out.join('\n')}\n${checks.map((c) => `  ${c.pass ? 'PASS' : 'FAIL'}  ${c.name}`).join('\n')}\n`,
  );
  return checks.every((c) => c.pass) ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  },
);
