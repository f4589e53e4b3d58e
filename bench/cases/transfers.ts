// Transfers per second through HTTP: POST /openapi/payment/transfer with one-time tokens issued in
// advance by the platform server (token issue is not measured), each order sent exactly once, 32
// concurrent clients, against the bare Fastify route. After the rounds the server reports the
// orders by status and checks the ledger (checkLedger).
import type autocannon from 'autocannon';
import type { BenchCase, Check, TargetResult } from '../lib/types.js';
import { BARE_PATH } from '../servers/bare.js';
import type { PlatformInfo, TransferOrders } from '../servers/platform.js';

const TRANSFERS_MIN = 1000;
/** Orders issued in advance; the warm-up and the rounds share them in proportion to their time. */
const ORDERS = 60_000;

/** What the load generator saw, per run of the case (module state: the load generator is this process). */
const seen = { sent: 0, succeeded: 0, otherResults: 0, exhausted: 0, samples: new Set<string>() };

function ordersOf(raw: unknown): TransferOrders {
  const t = (raw as PlatformInfo).transfers;
  if (t === null) throw new Error('the platform server was started without transfers');
  return t;
}

/** Per server: the next order to send (each round continues where the last one stopped). */
const cursors = new WeakMap<TransferOrders, { next: number }>();

function transferRequest(t: TransferOrders): autocannon.Request {
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

export const transfersCase: BenchCase = {
  name: 'transfers',
  description: 'POST /openapi/payment/transfer (pre-issued one-time tokens, each sent once, 1.00 each) vs a bare route',
  connections: 32,
  targets: [
    { label: 'bare', server: 'bare', requests: () => [{ method: 'GET', path: BARE_PATH }] },
    {
      label: 'transfer',
      server: 'platform',
      params: { users: 200, transfers: ORDERS, payers: 16 },
      requests: (raw) => [transferRequest(ordersOf(raw))],
      supply: (raw) => ordersOf(raw).orders.length,
    },
  ],
  checks(r: Record<string, TargetResult>): Check[] {
    const bare = r.bare?.median;
    const transfer = r.transfer;
    if (bare === undefined || transfer === undefined) return [];
    const rps = transfer.median.rps;
    const report = transfer.report ?? {};
    const value = (key: string) => report[key] ?? NaN;
    if (seen.samples.size > 0) process.stderr.write(`transfers: other results, e.g. ${[...seen.samples].join(' ')}\n`);
    const failed = seen.otherResults + transfer.median.non2xx + transfer.median.errors + seen.exhausted;
    return [
      { name: 'transfers/s', value: rps, limit: `>= ${TRANSFERS_MIN}`, pass: rps >= TRANSFERS_MIN },
      // For comparison across machines only: a transfer is a transaction of about ten statements
      // (order claim, two debits/credits, ledger rows) where the bare route does nothing.
      {
        name: 'transfers/s ratio transfer/bare (reported, no limit)',
        value: rps / bare.rps,
        limit: 'none',
        pass: true,
      },
      {
        name: 'transfers not answered code "1" (all rounds and warm-up)',
        value: failed,
        limit: '= 0',
        pass: failed === 0,
      },
      {
        name: 'orders completed on the server = transfers answered "1"',
        value: value('completed'),
        limit: `= ${seen.succeeded}`,
        pass: value('completed') === seen.succeeded && value('failed') === 0,
      },
      {
        name: "payers' balance left (cents) = issued - completed",
        value: value('payersLeftCents'),
        limit: `= ${value('payersLeftExpectedCents')}`,
        pass: value('payersLeftCents') === value('payersLeftExpectedCents'),
      },
      {
        name: 'ledger clean after the run (checkLedger)',
        value: value('ledgerClean'),
        limit: '= 1',
        pass: value('ledgerClean') === 1,
      },
    ];
  },
};
