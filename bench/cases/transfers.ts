// Transfers per second through HTTP: POST /openapi/payment/transfer with one-time tokens issued in
// advance by the platform server (token issue is not measured), each order sent exactly once, 32
// concurrent clients, on SQLite (target) and PostgreSQL (reported, no target), against the bare
// Fastify route. After the rounds each server reports its orders by status and checks the ledger
// (checkLedger). BENCH_ORDERS (default 60,000) orders per store are shared by the warm-up and the
// rounds in proportion to their time: a short smoke run needs far fewer.
import type autocannon from 'autocannon';
import type { BenchCase, Check, Target, TargetResult } from '../lib/types.js';
import { bareTarget } from '../lib/targets.js';
import type { PlatformInfo, TransferOrders } from '../servers/platform.js';

const TRANSFERS_MIN = 3000;
const ORDERS = Number(process.env.BENCH_ORDERS ?? 60_000);

/** What the load generator saw for one target (the load generator is this process). */
interface Seen {
  sent: number;
  succeeded: number;
  otherResults: number;
  exhausted: number;
  samples: Set<string>;
}

const seenBy = new Map<string, Seen>();

function ordersOf(raw: unknown): TransferOrders {
  const t = (raw as PlatformInfo).transfers;
  if (t === null) throw new Error('the platform server was started without transfers');
  return t;
}

/** Per server: the next order to send (each round continues where the last one stopped). */
const cursors = new WeakMap<TransferOrders, { next: number }>();

function transferRequest(t: TransferOrders, seen: Seen): autocannon.Request {
  let cursor = cursors.get(t);
  if (cursor === undefined) {
    cursor = { next: 0 };
    cursors.set(t, cursor);
  }
  const at = cursor;
  const qs = new URLSearchParams({ app_id: t.creds.app_id, app_secret: t.creds.app_secret }).toString();
  return {
    method: 'POST',
    path: `/openapi/payment/transfer?${qs}`,
    headers: { 'content-type': 'application/json' },
    setupRequest: (request) => {
      // Out of orders (should not happen: the rounds' shares add up to at most ORDERS): an order
      // again, answered -2016, and counted as a failure.
      const order = t.orders[at.next++] ?? t.orders[0];
      if (at.next > t.orders.length) seen.exhausted++;
      seen.sent++;
      request.body = JSON.stringify({ access_token: order?.code, serial_id: order?.serial_id });
      return request;
    },
    onResponse: (_status, body) => {
      if (body.startsWith('{"code":"1",')) seen.succeeded++;
      else {
        seen.otherResults++;
        if (seen.samples.size < 3) seen.samples.add(body);
      }
    },
  };
}

function transferTarget(label: string, store: 'sqlite' | 'postgres'): Target {
  const seen: Seen = { sent: 0, succeeded: 0, otherResults: 0, exhausted: 0, samples: new Set() };
  seenBy.set(label, seen);
  return {
    label,
    server: 'platform',
    params: { store, users: 200, transfers: ORDERS, payers: 16 },
    requests: (raw) => [transferRequest(ordersOf(raw), seen)],
    supply: (raw) => ordersOf(raw).orders.length,
  };
}

/** Exactly-once and the ledger, for one store. */
function ledgerChecks(label: string, t: TargetResult, seen: Seen): Check[] {
  const report = t.report ?? {};
  const value = (key: string) => report[key] ?? NaN;
  if (seen.samples.size > 0) process.stderr.write(`${label}: other results, e.g. ${[...seen.samples].join(' ')}\n`);
  const failed = seen.otherResults + t.median.non2xx + t.median.errors + seen.exhausted;
  return [
    {
      name: `${label}: transfers not answered code "1" (all rounds and warm-up)`,
      value: failed,
      limit: '= 0',
      pass: failed === 0,
    },
    {
      name: `${label}: orders completed on the server = transfers answered "1"`,
      value: value('completed'),
      limit: `= ${seen.succeeded}`,
      pass: value('completed') === seen.succeeded && value('failed') === 0,
    },
    {
      name: `${label}: payers' balance left (cents) = issued - completed`,
      value: value('payersLeftCents'),
      limit: `= ${value('payersLeftExpectedCents')}`,
      pass: value('payersLeftCents') === value('payersLeftExpectedCents'),
    },
    {
      name: `${label}: ledger clean after the run (checkLedger)`,
      value: value('ledgerClean'),
      limit: '= 1',
      pass: value('ledgerClean') === 1,
    },
  ];
}

export const transfersCase: BenchCase = {
  name: 'transfers',
  description: 'POST /openapi/payment/transfer (pre-issued one-time tokens, each sent once, 1.00 each) vs a bare route',
  connections: 32,
  targets: [bareTarget, transferTarget('transfer', 'sqlite'), transferTarget('transfer-pg', 'postgres')],
  checks(r: Record<string, TargetResult>): Check[] {
    const bare = r.bare?.median;
    const sqlite = r.transfer;
    const pg = r['transfer-pg'];
    if (bare === undefined || sqlite === undefined || pg === undefined) return [];
    const rps = sqlite.median.rps;
    return [
      { name: 'transfers/s, SQLite', value: rps, limit: `>= ${TRANSFERS_MIN}`, pass: rps >= TRANSFERS_MIN },
      { name: 'transfers/s, PostgreSQL (reported, no target)', value: pg.median.rps, limit: 'none', pass: true },
      // For comparison across machines only: a transfer is a transaction of about ten statements
      // (order claim, two debits/credits, ledger rows) where the bare route does nothing.
      {
        name: 'transfers/s ratio SQLite/bare (reported, no limit)',
        value: rps / bare.rps,
        limit: 'none',
        pass: true,
      },
      ...[sqlite, pg].flatMap((t) => {
        const seen = seenBy.get(t.label);
        return seen === undefined ? [] : ledgerChecks(t.label, t, seen);
      }),
    ];
  },
};
