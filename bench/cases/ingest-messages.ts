// Event ingest of users' messages that fan out to bots: batches of 1000 message.created through
// POST /internal/v1/events (2 in 5 private to a bot, 1 in 5 in a group mentioning one of its bots,
// the rest unmentioned group chatter; bench/lib/chat.ts), on SQLite (target) and PostgreSQL
// (reported, no target). events/s = batches/s x 1000. After the rounds the server holds one
// Update per private or mentioning message (nobody polls).
import type autocannon from 'autocannon';
import { messageBatch } from '../lib/chat.js';
import type { BenchCase, Check, Target, TargetResult } from '../lib/types.js';
import type { IngestInfo } from '../servers/ingest.js';

const EVENTS_PER_S_MIN = 20_000;
const BATCH = 1000;
const WORLD = { bots: 60, groups: 20, botsPerGroup: 3, chatUsers: 200 };

/** Batch numbers are unique within the load generator (this process), so every event and message id is new. */
let batches = 0;
/** Events answered but not applied (refused or duplicate), per store: the mix must apply whole. */
const notApplied = new Map<string, number>();

function messagesRequest(store: string, raw: unknown): autocannon.Request[] {
  const info = raw as IngestInfo;
  const world = info.chat;
  if (world === null) throw new Error('the ingest server was started without a chat world');
  return [
    {
      method: 'POST',
      path: '/internal/v1/events',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${info.adminToken}` },
      setupRequest: (request) => {
        request.body = JSON.stringify({ events: messageBatch(world, BATCH, `${process.pid}-${batches++}`).events });
        return request;
      },
      onResponse: (status, body) => {
        if (status !== 200) return;
        const r = JSON.parse(body) as { applied: number };
        notApplied.set(store, (notApplied.get(store) ?? 0) + BATCH - r.applied);
      },
    },
  ];
}

const target = (store: 'sqlite' | 'postgres'): Target => ({
  label: store,
  server: 'ingest',
  params: { store, moments: 1, ...WORLD },
  requests: (raw) => messagesRequest(store, raw),
});

const eventsPerS = (t: TargetResult | undefined) => (t === undefined ? NaN : t.median.rps * BATCH);
const failures = (t: TargetResult | undefined) => (t === undefined ? NaN : t.median.non2xx + t.median.errors);

export const ingestMessagesCase: BenchCase = {
  name: 'ingest-messages',
  description:
    `POST /internal/v1/events, batches of ${BATCH} message.created (2/5 private to a bot, 1/5 group mentioning a bot, ` +
    `2/5 group without mention) fanning out to ${WORLD.bots} bots in ${WORLD.groups} groups`,
  // As for `ingest`: one writer at a time, a few connections keep it busy.
  connections: 4,
  targets: [target('sqlite'), target('postgres')],
  checks(r: Record<string, TargetResult>): Check[] {
    const sqlite = eventsPerS(r.sqlite);
    const failed = failures(r.sqlite) + failures(r.postgres);
    return [
      { name: 'events/s, SQLite', value: sqlite, limit: `>= ${EVENTS_PER_S_MIN}`, pass: sqlite >= EVENTS_PER_S_MIN },
      { name: 'events/s, PostgreSQL (reported, no target)', value: eventsPerS(r.postgres), limit: 'none', pass: true },
      { name: 'failed batches (non-2xx + errors, all rounds)', value: failed, limit: '= 0', pass: failed === 0 },
      ...(['sqlite', 'postgres'] as const).map((store) => ({
        name: `events answered but not applied, ${store}`,
        value: notApplied.get(store) ?? 0,
        limit: '= 0',
        pass: (notApplied.get(store) ?? 0) === 0,
      })),
    ];
  },
};
