// Event ingest through POST /internal/v1/events: batches of 1000, 500 user.upserted (new users)
// then 500 moment.liked by those users, on SQLite (target) and PostgreSQL (reported, no target).
// events/s = batches/s x 1000.
import type autocannon from 'autocannon';
import type { BenchCase, Check, TargetResult } from '../lib/types.js';
import type { IngestInfo } from '../servers/ingest.js';

const EVENTS_PER_S_MIN = 50_000;
const HALF = 500;

/** Batch numbers are unique within the load generator (this process), so every event id and user is new. */
let batches = 0;

function batchBody(info: IngestInfo): string {
  const b = `${process.pid}-${batches++}`;
  const users = Array.from({ length: HALF }, (_, i) => `bench-${b}-${i}`);
  const moments = info.momentIds;
  return JSON.stringify({
    events: [
      ...users.map((user_id, i) => ({
        id: `u-${b}-${i}`,
        type: 'user.upserted',
        data: { user_id, name: `user ${i}`, wallet_address: `0x${b}-${i}` },
      })),
      ...users.map((user_id, i) => ({
        id: `l-${b}-${i}`,
        type: 'moment.liked',
        data: { moment_id: moments[(batches * HALF + i) % moments.length] ?? '', user_id },
      })),
    ],
  });
}

function ingestRequest(raw: unknown): autocannon.Request[] {
  const info = raw as IngestInfo;
  return [
    {
      method: 'POST',
      path: '/internal/v1/events',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${info.adminToken}` },
      setupRequest: (request) => {
        request.body = batchBody(info);
        return request;
      },
    },
  ];
}

const eventsPerS = (t: TargetResult | undefined) => (t === undefined ? NaN : t.median.rps * 2 * HALF);
const failures = (t: TargetResult | undefined) => (t === undefined ? NaN : t.median.non2xx + t.median.errors);

export const ingestCase: BenchCase = {
  name: 'ingest',
  description: `POST /internal/v1/events, batches of ${2 * HALF} (${HALF} user.upserted of new users, then ${HALF} moment.liked by them)`,
  // The store takes one writer at a time; a few connections keep it busy without queueing batches.
  connections: 4,
  targets: [
    { label: 'sqlite', server: 'ingest', params: { store: 'sqlite' }, requests: ingestRequest },
    { label: 'postgres', server: 'ingest', params: { store: 'postgres' }, requests: ingestRequest },
  ],
  checks(r: Record<string, TargetResult>): Check[] {
    const sqlite = eventsPerS(r.sqlite);
    return [
      { name: 'events/s, SQLite', value: sqlite, limit: `>= ${EVENTS_PER_S_MIN}`, pass: sqlite >= EVENTS_PER_S_MIN },
      { name: 'events/s, PostgreSQL (reported, no target)', value: eventsPerS(r.postgres), limit: 'none', pass: true },
      {
        name: 'failed batches (non-2xx + errors, all rounds)',
        value: failures(r.sqlite) + failures(r.postgres),
        limit: '= 0',
        pass: failures(r.sqlite) + failures(r.postgres) === 0,
      },
    ];
  },
};
