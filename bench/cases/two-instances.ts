// Two instances of the platform on one PostgreSQL database and one Redis, no balancer: the load
// generator alternates its requests between them. For BENCH_DURATION seconds, at once:
//   - ingest: batches of message.created (bench/lib/chat.ts) fanning out to bots;
//   - sends: signed POST /openapi/messages/group/send by the bots into their groups;
//   - delivery: half the bots take webhooks (a receiver here, on 127.0.0.1; both instances run a
//     dispatcher), the other half poll getUpdates (offset, timeout 1 s) on alternating instances.
// Then it waits (at most DRAIN_MS) for every Update the batches created, and counts deliveries per
// Update (webhook-id, or bot + update_id): each exactly once, and the outbox holds each
// acknowledged send exactly once.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildChatWorld, messageBatch, type ChatWorld } from '../lib/chat.js';
import { call, callJson, pause } from '../lib/http.js';
import { signedHeaders } from '../lib/signing.js';
import { startServer, type ServerProcess } from '../lib/spawn.js';
import { freshStore, REDIS_URL } from '../lib/store.js';
import type { Check, RunSettings, ScriptedCase } from '../lib/types.js';

const WORLD = { users: 100, bots: 20, groups: 10, botsPerGroup: 2 };
const BATCH = 200;
const INGESTERS = 2;
const SENDERS = 8;
const DRAIN_MS = 60_000;

type Bot = ChatWorld['bots'][number];

/** Round robin over the instances, and what each was sent. */
class Alternate {
  private n = 0;
  readonly sent: number[];
  constructor(readonly ports: number[]) {
    this.sent = ports.map(() => 0);
  }
  next(): number {
    const i = this.n++ % this.ports.length;
    this.sent[i] = (this.sent[i] ?? 0) + 1;
    return this.ports[i] ?? 0;
  }
}

/** Deliveries seen per Update, by whatever identifies it (webhook-id, or bot and update_id). */
class Deliveries {
  readonly count = new Map<string, number>();
  /** Distinct Updates received per bot. */
  readonly perBot = new Map<string, number>();
  add(bot: string, key: string): void {
    const n = (this.count.get(key) ?? 0) + 1;
    this.count.set(key, n);
    if (n === 1) this.perBot.set(bot, (this.perBot.get(bot) ?? 0) + 1);
  }
  get distinct(): number {
    return this.count.size;
  }
  get extra(): number {
    let extra = 0;
    for (const n of this.count.values()) extra += n - 1;
    return extra;
  }
}

/** A webhook receiver on 127.0.0.1: counts each request by its webhook-id header, answers 200. */
async function receiver(d: Deliveries): Promise<{ url: (bot: string) => string; close(): void }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const bot = decodeURIComponent(req.url?.split('/')[2] ?? '');
      d.add(bot, String(req.headers['webhook-id']));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (bot) => `http://127.0.0.1:${port}/hook/${encodeURIComponent(bot)}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

interface Running {
  stop: boolean;
  failures: number;
  samples: string[];
}

const fail = (r: Running, what: string) => {
  r.failures++;
  if (r.samples.length < 3) r.samples.push(what.slice(0, 300));
};

/** One bot polling on alternating instances until stopped, offset after the last Update seen. */
async function poll(bot: Bot, to: Alternate, d: Deliveries, r: Running, until: () => boolean): Promise<void> {
  let offset = 0;
  while (!until()) {
    const reply = await call(to.next(), '/openapi/bot/getUpdates', {
      headers: { 'x-api-key': bot.api_key },
      body: { offset, timeout: 1, limit: 100 },
    });
    if (reply.status !== 200) {
      fail(r, `getUpdates ${reply.status} ${reply.text}`);
      continue;
    }
    for (const u of (JSON.parse(reply.text) as { result: { update_id: number }[] }).result) {
      d.add(bot.bot_user_id, `${bot.bot_user_id}:${u.update_id}`);
      offset = Math.max(offset, u.update_id + 1);
    }
  }
}

async function ingester(w: ChatWorld, to: Alternate, admin: Record<string, string>, r: Running, tally: Tally) {
  for (let n = 0; !r.stop; n++) {
    const batch = messageBatch(w, BATCH, `${randomBytes(4).toString('hex')}-${n}`);
    const reply = await call(to.next(), '/internal/v1/events', { headers: admin, body: { events: batch.events } });
    const applied = reply.status === 200 ? (JSON.parse(reply.text) as { applied: number }).applied : -1;
    if (applied !== BATCH) {
      fail(r, `events ${reply.status} ${reply.text}`);
      continue;
    }
    tally.events += BATCH;
    for (const [bot, k] of batch.updates) tally.updates.set(bot, (tally.updates.get(bot) ?? 0) + k);
  }
}

async function sender(pairs: { bot: Bot; group: string }[], to: Alternate, r: Running, tally: Tally, id: number) {
  for (let n = 0; !r.stop; n++) {
    const pair = pairs[(id + n * SENDERS) % pairs.length];
    if (pair === undefined) return;
    const content = `two-instances ${id}-${n}`;
    const reply = await call(to.next(), '/openapi/messages/group/send', {
      headers: signedHeaders(pair.bot),
      body: { group_id: pair.group, object_name: 'text', content },
    });
    if (reply.status === 200 && (JSON.parse(reply.text) as { code: unknown }).code === 200) tally.sent.add(content);
    else fail(r, `send ${reply.status} ${reply.text}`);
  }
}

interface Tally {
  events: number;
  updates: Map<string, number>;
  sent: Set<string>;
}

/** Every outbox message, read through the operator feed in pages (on alternating instances). */
async function outbox(to: Alternate, admin: Record<string, string>): Promise<string[]> {
  const contents: string[] = [];
  for (let after = '0'; ;) {
    const page = await callJson<{ messages: { content: string }[]; next_cursor: string }>(
      to.next(),
      `/internal/v1/messages?after=${after}&limit=1000`,
      { headers: admin },
    );
    contents.push(...page.messages.map((m) => m.content));
    if (page.messages.length === 0 || page.next_cursor === after) return contents;
    after = page.next_cursor;
  }
}

async function run(s: RunSettings) {
  const store = await freshStore('postgres', 'two');
  const base = {
    databaseUrl: store.url,
    redisUrl: REDIS_URL,
    adminToken: randomBytes(24).toString('hex'),
    encryptionKey: randomBytes(32).toString('base64'),
  };
  const admin = { authorization: `Bearer ${base.adminToken}` };
  const servers: ServerProcess[] = [];
  const deliveries = new Deliveries();
  const hooks = await receiver(deliveries);
  try {
    // One after the other: the first runs the migrations.
    for (const name of ['a', 'b']) {
      s.log(`  starting instance ${name}...`);
      servers.push(await startServer('delivery', base));
    }
    const setup = servers[0]?.port ?? 0;
    const world = await buildChatWorld(
      {
        ingest: async (events) => {
          const r = await callJson<{ refused: unknown[] }>(setup, '/internal/v1/events', {
            headers: admin,
            body: { events },
          });
          if (r.refused.length > 0) throw new Error(`world refused: ${JSON.stringify(r.refused[0])}`);
        },
        createBot: (owner, name) =>
          callJson<Bot>(setup, '/internal/v1/bots', { headers: admin, body: { owner_user_id: owner, name } }),
      },
      WORLD,
      randomBytes(3).toString('hex'),
    );
    const webhookBots = world.bots.filter((_, i) => i % 2 === 0);
    const pollingBots = world.bots.filter((_, i) => i % 2 === 1);
    for (const bot of webhookBots) {
      await callJson(setup, '/openapi/bot/setWebhook', {
        headers: { 'x-api-key': bot.api_key },
        body: { url: hooks.url(bot.bot_user_id) },
      });
    }
    const byId = new Map(world.bots.map((b) => [b.bot_user_id, b]));
    const pairs = world.groups.flatMap((g) =>
      g.bots.flatMap((id) => {
        const bot = byId.get(id);
        return bot === undefined ? [] : [{ bot, group: g.group_id }];
      }),
    );

    const to = new Alternate(servers.map((x) => x.port));
    const running: Running = { stop: false, failures: 0, samples: [] };
    const tally: Tally = { events: 0, updates: new Map(), sent: new Set() };
    const expected = () => [...tally.updates.values()].reduce((a, b) => a + b, 0);
    let drained = false;
    const polls = pollingBots.map((b) => poll(b, to, deliveries, running, () => drained));
    s.log(`  ${INGESTERS} ingesters, ${SENDERS} senders, ${pollingBots.length} pollers for ${s.durationS} s`);
    const started = performance.now();
    const load = [
      ...Array.from({ length: INGESTERS }, () => ingester(world, to, admin, running, tally)),
      ...Array.from({ length: SENDERS }, (_, i) => sender(pairs, to, running, tally, i)),
    ];
    await pause(s.durationS * 1000);
    running.stop = true;
    await Promise.all(load);
    const seconds = (performance.now() - started) / 1000;
    s.log(`  waiting for ${expected()} Updates to be delivered...`);
    const drainStart = performance.now();
    while (deliveries.distinct < expected() && performance.now() - drainStart < DRAIN_MS) await pause(100);
    const drainS = (performance.now() - drainStart) / 1000;
    // Anything sent twice would arrive about now: a poll round more, and a moment for the hooks.
    await pause(1500);
    drained = true;
    await Promise.all(polls);
    const stored = await outbox(to, admin);
    const storedOnce = new Set(stored);
    const ours = stored.filter((c) => tally.sent.has(c)).length;

    let missing = 0;
    for (const [bot, n] of tally.updates) missing += Math.max(0, n - (deliveries.perBot.get(bot) ?? 0));
    const unexpected = deliveries.distinct - (expected() - missing);
    const sentPerS = tally.sent.size / seconds;
    const eventsPerS = tally.events / seconds;
    const checks: Check[] = [
      { name: 'sends/s, both instances (reported, no target)', value: sentPerS, limit: 'none', pass: true },
      { name: 'ingest events/s, both instances (reported, no target)', value: eventsPerS, limit: 'none', pass: true },
      {
        name: 'Updates delivered more than once (extra deliveries)',
        value: deliveries.extra,
        limit: '= 0',
        pass: deliveries.extra === 0,
      },
      { name: 'Updates never delivered', value: missing, limit: '= 0', pass: missing === 0 },
      { name: 'Updates delivered that no batch created', value: unexpected, limit: '= 0', pass: unexpected === 0 },
      {
        name: 'acknowledged sends in the outbox (each once)',
        value: ours,
        limit: `= ${tally.sent.size}`,
        pass: ours === tally.sent.size && storedOnce.size === stored.length,
      },
      { name: 'failed requests', value: running.failures, limit: '= 0', pass: running.failures === 0 },
    ];
    if (running.samples.length > 0) s.log(`  failures, e.g. ${running.samples.join(' | ')}`);
    return {
      notes: [
        `two instances (servers/delivery.ts) on ${store.where} and Redis ${REDIS_URL}, each with its webhook dispatcher; ` +
          `requests alternate between them (${to.sent.join(' / ')} sent to each)`,
        `world: ${WORLD.users} users, ${WORLD.bots} bots (${webhookBots.length} webhook to 127.0.0.1, ${pollingBots.length} polling), ` +
          `${WORLD.groups} groups with ${WORLD.botsPerGroup} bots each; ${INGESTERS} ingesters (batches of ${BATCH}), ${SENDERS} senders`,
        `${seconds.toFixed(1)} s of load: ${tally.events} events (${eventsPerS.toFixed(0)}/s), ${tally.sent.size} sends (${sentPerS.toFixed(0)}/s)`,
        `${expected()} Updates created, ${deliveries.distinct} delivered (${drainS.toFixed(1)} s to drain after the load), ` +
          `${deliveries.extra} extra deliveries; outbox ${stored.length} messages, ${storedOnce.size} distinct`,
      ],
      checks,
    };
  } finally {
    hooks.close();
    await Promise.all(servers.map((x) => x.stop()));
    await store.remove();
  }
}

export const twoInstancesCase: ScriptedCase = {
  name: 'two-instances',
  description:
    'two instances on PostgreSQL + Redis, requests alternating: combined send and ingest rates, each Update delivered once',
  run,
};
