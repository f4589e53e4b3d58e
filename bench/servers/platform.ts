// Our application as `npm run serve` builds it (buildApp from src/app.ts, same logger options),
// on a fresh SQLite file (or, with params.store 'postgres', a fresh PostgreSQL database; see
// lib/store.ts), with the demo and a synthetic community loaded and one app created for the load
// generator.
//   params: store ('sqlite' or 'postgres', default sqlite), users (default 2000), likes (default 10 per user), seed (default 1),
//           logLevel (default 'warn'), sampleUsers (ids handed to the load generator, default 1000),
//           transfers (one-time payment tokens issued in advance, default 0) and payers (default 16):
//           that many payers, each credited exactly what its orders need, pay 1.00 per order to the
//           app's owner; orders go round the payers. After the rounds the server reports the orders
//           by status and checkLedger (the points module).
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../src/app.js';
import { boot } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import { ensureDemo } from '../../src/demo/demo.js';
import { SyntheticCommunity } from '../../src/demo/synthetic.js';
import { formatCents } from '../../src/lib/money.js';
import { findApp } from '../../src/modules/apps/index.js';
import { checkLedger } from '../../src/modules/points/index.js';
import type { Services } from '../../src/services.js';
import type { AppCredentials } from '../lib/signing.js';
import { freshStore, storeKind } from '../lib/store.js';
import { numParam, type ServerKind, type ServerReport } from '../lib/types.js';

export interface PlatformInfo {
  creds: AppCredentials;
  bot: AppCredentials;
  /** The bench bot's Telegram token (`<bot id>:<App Key>`), for the Telegram-compatible surface. */
  botTelegramToken: string;
  botGroupId: string;
  userIds: string[];
  /** The sampled users' wallets on chain 1, in the same order as userIds. */
  wallets: string[];
  groupUrls: string[];
  momentIds: string[];
  /** With `transfers`: the one-time tokens issued in advance, each for one transfer by `creds`. */
  transfers: TransferOrders | null;
}

export interface TransferOrders {
  creds: AppCredentials;
  /** `code` is the one-time token of the order `serial_id`. */
  orders: { serial_id: string; code: string }[];
}

const ORDER_CENTS = 100;
const ORDER_AMOUNT = formatCents(ORDER_CENTS);

/** Payers credited with exactly what their orders need, and the orders issued through PaymentsService.authorize. */
async function issueTransfers(s: Services, creds: AppCredentials, n: number, payerCount: number) {
  const app = await findApp(s.db.k, creds.app_id);
  if (app === undefined || !(await s.oauth.checkApp(creds.app_id, creds.app_secret))) {
    throw new Error('bench app not found');
  }
  payerCount = Math.max(1, Math.min(payerCount, n));
  const payers = Array.from({ length: payerCount }, (_, i) => `bench-payer-${i}`);
  const perPayer = (i: number) => Math.floor(n / payerCount) + (i < n % payerCount ? 1 : 0);
  const set = await s.events.ingest([
    ...payers.map((id) => ({
      id: `bench-user-${id}`,
      type: 'user.upserted',
      data: { user_id: id, name: id, wallet_address: `0x${randomBytes(20).toString('hex')}` },
    })),
    ...payers.map((id, i) => ({
      id: `bench-credit-${id}`,
      type: 'points.credited',
      data: { user_id: id, amount: formatCents(perPayer(i) * ORDER_CENTS) },
    })),
  ]);
  if (set.refused.length > 0) throw new Error(`bench payers not set up: ${JSON.stringify(set.refused)}`);
  const orders: TransferOrders['orders'] = [];
  for (let i = 0; i < n; i++) {
    const payer = payers[i % payerCount] ?? '';
    const o = await s.payments.authorize(app, payer, {
      amount: ORDER_AMOUNT,
      payer_user_id: payer,
      receiver_user_id: app.owner_user_id,
      pay_type: 'send',
      pay_info: `bench order ${i}`,
    });
    orders.push({ serial_id: o.serial_id, code: o.code });
  }
  return { orders, payers };
}

/** After the rounds: the orders by status, the payers' balances and the ledger's invariants. */
async function transfersReport(s: Services, issued: number, payers: string[]): Promise<ServerReport> {
  const byStatus = await s.db.k
    .selectFrom('payment_orders')
    .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
  const count = (status: string) => byStatus.find((r) => r.status === status)?.n ?? 0;
  const left = await s.db.k
    .selectFrom('ledger_accounts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('balance_cents'), eb.lit(0)).as('cents'))
    .where('user_id', 'in', payers)
    .executeTakeFirstOrThrow();
  const leftCents = left.cents;
  const l = await checkLedger(s.db.k);
  const clean =
    l.sumOfBalancesCents === 0n &&
    l.creditedCents === l.userBalancesCents &&
    l.negativeUserAccounts === 0 &&
    l.entriesMatchBalances &&
    l.unbalancedTransactions === 0;
  const completed = count('completed');
  const expectedLeft = (issued - completed) * ORDER_CENTS;
  return {
    notes: [
      `after the rounds: ${issued} orders issued, ${completed} completed, ${count('failed')} failed, ` +
        `${count('authorized')} never sent; payers hold ${formatCents(leftCents)} (expected ${formatCents(expectedLeft)})`,
      `checkLedger: ${l.accounts} accounts, sum of balances ${l.sumOfBalancesCents}, credited ${l.creditedCents} = ` +
        `user balances ${l.userBalancesCents}, ${l.negativeUserAccounts} negative user accounts, ` +
        `entries match balances: ${l.entriesMatchBalances}, ${l.unbalancedTransactions} unbalanced transactions: ` +
        (clean ? 'clean' : 'NOT CLEAN'),
    ],
    values: {
      issued,
      completed,
      failed: count('failed'),
      unsent: count('authorized'),
      payersLeftCents: leftCents,
      payersLeftExpectedCents: expectedLeft,
      ledgerClean: clean ? 1 : 0,
    },
  };
}

export const platformServer: ServerKind = {
  name: 'platform',
  async start(params) {
    const users = numParam(params, 'users', 2000);
    const likes = numParam(params, 'likes', 10 * users);
    const seed = numParam(params, 'seed', 1);
    const sample = Math.min(users, numParam(params, 'sampleUsers', 1000));
    const logLevel = typeof params.logLevel === 'string' ? params.logLevel : 'warn';
    const transfers = numParam(params, 'transfers', 0);

    const store = await freshStore(storeKind(params.store), 'platform');
    const config = loadConfig({
      DATABASE_URL: store.url,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ADMIN_TOKEN: randomBytes(24).toString('hex'),
      RATE_LIMITS: 'off',
      LOG_LEVEL: logLevel,
      HOST: '127.0.0.1',
      PORT: '0',
      // Payment tokens are issued before the rounds, while the other stores' servers are still
      // issuing theirs (minutes on PostgreSQL for 100,000): the default 300 s would expire them.
      PAYMENT_TOKEN_TTL_S: '86400',
    });
    const booted = await boot(config);
    const s = booted.services;

    const started = performance.now();
    await ensureDemo(s);
    const community = new SyntheticCommunity({ users, likes, seed });
    let refused = 0;
    for (const batch of community.batches()) refused += (await s.events.ingest(batch)).refused.length;
    if (refused > 0) throw new Error(`${refused} synthetic events refused`);
    const seededS = (performance.now() - started) / 1000;
    const creds = await s.apps.createApp({ owner_user_id: community.userId(0), name: 'Bench', redirect_uris: [] });
    // A bot in a group of its own (synthetic groups may be full), for the send cases.
    const bot = await s.apps.createBot({ owner_user_id: community.userId(0), name: 'Bench bot' });
    const botGroupId = `bench-group-${bot.bot_user_id}`;
    const joined = await s.events.ingest([
      {
        id: `bench-group-${bot.bot_user_id}`,
        type: 'group.upserted',
        data: { group_id: botGroupId, name: 'Bench', invite_url: `https://bench.example/${botGroupId}` },
      },
      {
        id: `bench-join-${bot.bot_user_id}`,
        type: 'group.member.joined',
        data: { group_id: botGroupId, user_id: bot.bot_user_id },
      },
    ]);
    if (joined.applied !== 2) throw new Error(`bench group not set up: ${JSON.stringify(joined)}`);
    const issueStarted = performance.now();
    const issued =
      transfers > 0 ? await issueTransfers(s, creds, transfers, numParam(params, 'payers', 16)) : undefined;
    const issueS = (performance.now() - issueStarted) / 1000;

    // The same logger options as src/server.ts.
    const app = await buildApp(s, {
      logger: {
        level: config.logLevel,
        redact: {
          paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
          remove: true,
        },
      },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });

    const step = users / sample;
    const info: PlatformInfo = {
      creds,
      bot,
      botTelegramToken: bot.telegram_token,
      botGroupId,
      userIds: Array.from({ length: sample }, (_, i) => community.userId(Math.floor(i * step))),
      wallets: Array.from({ length: sample }, (_, i) => community.wallet(Math.floor(i * step))),
      groupUrls: Array.from({ length: community.plan.groups }, (_, g) => community.inviteUrl(g)),
      momentIds: Array.from({ length: Math.min(community.plan.moments, 1000) }, (_, m) => community.momentId(m)),
      transfers: issued === undefined ? null : { creds, orders: issued.orders },
    };
    const p = community.plan;
    return {
      port: (app.server.address() as AddressInfo).port,
      info,
      notes: [
        `buildApp (src/app.ts) on a fresh ${store.where}, RATE_LIMITS=off, logger level '${config.logLevel}'`,
        `data: demo + synthetic seed ${seed}: ${p.users} users, ${p.follows} follows, ${p.groups} groups, ` +
          `${p.moments} moments, ${p.likes} likes, ${p.events} events in ${seededS.toFixed(1)} s`,
        ...(issued === undefined
          ? []
          : [
              `transfers: ${transfers} one-time tokens of ${ORDER_AMOUNT} from ${issued.payers.length} payers ` +
                `to the app's owner, issued through PaymentsService.authorize in ${issueS.toFixed(1)} s (not measured)`,
            ]),
      ],
      ...(issued === undefined ? {} : { report: () => transfersReport(s, transfers, issued.payers) }),
      close: async () => {
        await app.close();
        await booted.close();
        await store.remove();
      },
    };
  },
};
