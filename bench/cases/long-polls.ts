// Idle long polls held by one process, and how fast they wake while held. A store with BENCH_POLLS
// bots (default 10,000) is seeded in one process and served by another (its memory is the
// platform's, not the seeding's; servers/delivery.ts). Every bot holds a getUpdates (timeout 50 s,
// polled again whenever it answers). While they are all held, probes run for BENCH_DURATION
// seconds, one at a time: a private message.created to one bot through POST /internal/v1/events,
// timed from posting the event to that bot's poll answering with it. RSS is read before the
// polls, once all are held, and after the probes.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, heldPolls, pause } from '../lib/http.js';
import { startServer } from '../lib/spawn.js';
import { median, percentile } from '../lib/stats.js';
import type { RunSettings, ScriptedCase } from '../lib/types.js';
import type { DeliveryInfo } from '../servers/delivery.js';

const POLLS = Number(process.env.BENCH_POLLS ?? 10_000);
const RSS_MAX_MB = 200;
const WAKE_P99_MAX_MS = 25;
/** A probe not answered within this long counts as missed. */
const PROBE_TIMEOUT_MS = 5_000;
/** Time allowed for the server to hold every poll. */
const HOLD_TIMEOUT_MS = 120_000;
const MB = 2 ** 20;
const heap = (m: NodeJS.MemoryUsage): string => `${(m.heapUsed / MB).toFixed(0)} / ${(m.heapTotal / MB).toFixed(0)}`;

/** One getUpdates after another for each bot, until stopped; reports each answer with Updates. */
class Pollers {
  private readonly open = new Set<ClientRequest>();
  private readonly waiting = new Map<string, (at: number) => void>();
  private stopped = false;
  errors = 0;

  constructor(private readonly port: number) {}

  start(bot: DeliveryInfo['bots'][number]): void {
    const headers = { 'x-api-key': bot.api_key };
    let req: ClientRequest | undefined;
    void call(this.port, '/openapi/bot/getUpdates', {
      body: { timeout: 50 },
      headers,
      onRequest: (r) => {
        req = r;
        this.open.add(r);
      },
    }).then(
      (reply) => {
        if (req !== undefined) this.open.delete(req);
        if (reply.status !== 200) this.errors++;
        else if (!reply.text.includes('"result":[]')) this.waiting.get(bot.bot_user_id)?.(performance.now());
        if (!this.stopped) this.start(bot);
      },
      () => {
        if (req !== undefined) this.open.delete(req);
        if (!this.stopped) this.errors++;
      },
    );
  }

  /** Resolves with the time the bot's poll next answers with Updates (or NaN after the timeout). */
  answer(botId: string): Promise<number> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(botId);
        resolve(NaN);
      }, PROBE_TIMEOUT_MS);
      this.waiting.set(botId, (at) => {
        clearTimeout(timer);
        this.waiting.delete(botId);
        resolve(at);
      });
    });
  }

  stop(): void {
    this.stopped = true;
    for (const r of this.open) r.destroy();
  }
}

async function untilHeld(port: number, n: number): Promise<number> {
  const deadline = Date.now() + HOLD_TIMEOUT_MS;
  for (;;) {
    const held = await heldPolls(port);
    if (held >= n || Date.now() > deadline) return held;
    await pause(250);
  }
}

async function run(s: RunSettings) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-polls-'));
  const params = {
    dir,
    bots: POLLS,
    adminToken: randomBytes(24).toString('hex'),
    encryptionKey: randomBytes(32).toString('base64'),
  };
  try {
    s.log(`  seeding ${POLLS} bots...`);
    const seeder = await startServer('delivery-seed', params);
    const info = seeder.info as DeliveryInfo;
    await seeder.stop();
    const server = await startServer('delivery', params);
    const pollers = new Pollers(server.port);
    try {
      const before = await server.memory();
      s.log(`  opening ${POLLS} long polls...`);
      for (const bot of info.bots) pollers.start(bot);
      const held = await untilHeld(server.port, POLLS);
      const whenHeld = await server.memory();
      s.log(`  ${held} polls held; probing for ${s.durationS} s`);
      const admin = { authorization: `Bearer ${info.adminToken}` };
      const latencies: number[] = [];
      let missed = 0;
      const tag = randomBytes(4).toString('hex');
      const end = performance.now() + s.durationS * 1000;
      for (let k = 0; performance.now() < end; k++) {
        // Spread over the bots (7919 is prime), so a probe rarely finds its bot's poll just re-opened.
        const bot = info.bots[(k * 7919) % info.bots.length];
        if (bot === undefined) break;
        const answered = pollers.answer(bot.bot_user_id);
        const t0 = performance.now();
        const posted = await call(server.port, '/internal/v1/events', {
          headers: admin,
          body: {
            events: [
              {
                id: `lp-${tag}-${k}`,
                type: 'message.created',
                data: {
                  message_id: `lp-${tag}-${k}`,
                  chat_type: 'private',
                  from_user_id: info.userId,
                  to_user_id: bot.bot_user_id,
                  kind: 'text',
                  text: 'wake up',
                },
              },
            ],
          },
        });
        if (posted.status !== 200) throw new Error(`events: HTTP ${posted.status} ${posted.text}`);
        const at = await answered;
        if (Number.isNaN(at)) missed++;
        else latencies.push(at - t0);
      }
      const after = await server.memory();
      const heldAfter = await untilHeld(server.port, POLLS);
      const sorted = Float64Array.from(latencies).sort();
      const p99 = percentile(sorted, 99);
      const rssMb = Math.max(whenHeld.rss, after.rss) / MB;
      return {
        notes: [
          `SQLite store seeded with ${POLLS} bots by one process, served by another (webhook dispatcher running, logger warn)`,
          `server RSS: ${(before.rss / MB).toFixed(0)} MB before the polls, ${(whenHeld.rss / MB).toFixed(0)} MB with ${held} held, ` +
            `${(after.rss / MB).toFixed(0)} MB after the probes`,
          `server V8 heap used / committed (MB): ${[before, whenHeld, after].map(heap).join(', ')} (before, held, after); ` +
            `outside the heap (RSS - committed heap): ${[before, whenHeld, after].map((m) => ((m.rss - m.heapTotal) / MB).toFixed(0)).join(', ')} MB`,
          `wake-up (event posted -> its poll answered, one probe at a time while the others wait): ` +
            `${latencies.length} probes, p50 ${median(latencies).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, ` +
            `max ${(sorted[sorted.length - 1] ?? NaN).toFixed(2)} ms`,
        ],
        checks: [
          { name: 'polls held at once', value: held, limit: `= ${POLLS}`, pass: held >= POLLS },
          { name: 'polls held after the probes', value: heldAfter, limit: `= ${POLLS}`, pass: heldAfter >= POLLS },
          {
            name: `server RSS (MB) with ${POLLS} polls held`,
            value: rssMb,
            limit: `<= ${RSS_MAX_MB}`,
            pass: rssMb <= RSS_MAX_MB,
          },
          {
            name: 'wake-up p99 (ms) while the polls wait',
            value: p99,
            limit: `<= ${WAKE_P99_MAX_MS}`,
            pass: p99 <= WAKE_P99_MAX_MS,
          },
          {
            name: 'probes missed (no answer within 5 s) + poll errors',
            value: missed + pollers.errors,
            limit: '= 0',
            pass: missed + pollers.errors === 0 && latencies.length > 0,
          },
        ],
      };
    } finally {
      pollers.stop();
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const longPollsCase: ScriptedCase = {
  name: 'long-polls',
  description: `${POLLS} idle long polls held by one process (SQLite): its RSS, and wake-up latency while they wait`,
  run,
};
