// Our application for the delivery benchmarks: webhooks allowed to loopback
// (WEBHOOK_ALLOW_INSECURE=1), the webhook dispatcher running.
//   'delivery-seed' creates a store in params.dir with params.bots bots (five per owner, the limit)
//   and stops: the serving process then starts on that store, as after a restart, so its memory
//   is the platform's and not the seeding's.
//   'delivery' serves the store in params.dir (params.adminToken, params.encryptionKey as seeded),
//   or the one params.databaseUrl names, with params.redisUrl when given (several instances).
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buildApp } from '../../src/app.js';
import { boot, listen } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import type { Params, ServerKind } from '../lib/types.js';

export interface DeliveryInfo {
  adminToken: string;
  /** A user who writes to the bots. */
  userId: string;
  bots: { bot_user_id: string; api_key: string }[];
}

const text = (p: Params, key: string): string => {
  const v = p[key];
  if (typeof v !== 'string') throw new Error(`param ${key} is required`);
  return v;
};

const configOf = (p: Params) =>
  loadConfig({
    DATABASE_URL: typeof p.databaseUrl === 'string' ? p.databaseUrl : `sqlite:${join(text(p, 'dir'), 'platform.db')}`,
    ...(typeof p.redisUrl === 'string' ? { REDIS_URL: p.redisUrl } : {}),
    ENCRYPTION_KEY: text(p, 'encryptionKey'),
    ADMIN_TOKEN: text(p, 'adminToken'),
    RATE_LIMITS: 'off',
    WEBHOOK_ALLOW_INSECURE: '1',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
  });

export const deliverySeed: ServerKind = {
  name: 'delivery-seed',
  async start(params) {
    const botCount = typeof params.bots === 'number' ? params.bots : 2;
    const booted = await boot(configOf(params));
    const s = booted.services;
    const owners = Math.ceil(botCount / 5) + 1;
    const users = Array.from({ length: owners }, (_, i) => ({
      id: `bench-user-${i}`,
      type: 'user.upserted',
      data: { user_id: `u${i}`, name: `User ${i}`, wallet_address: `0x${String(i).padStart(40, '0')}`, level: 5 },
    }));
    for (let i = 0; i < users.length; i += 1000) await s.events.ingest(users.slice(i, i + 1000));
    const bots: DeliveryInfo['bots'] = [];
    for (let i = 0; i < botCount; i++) {
      const b = await s.apps.createBot({ owner_user_id: `u${1 + Math.floor(i / 5)}`, name: `Bot ${i}` });
      bots.push({ bot_user_id: b.bot_user_id, api_key: b.api_key });
    }
    await booted.close();
    const info: DeliveryInfo = { adminToken: text(params, 'adminToken'), userId: 'u0', bots };
    return { port: 0, info, notes: [`seeded ${botCount} bots`], close: () => Promise.resolve() };
  },
};

export const deliveryServer: ServerKind = {
  name: 'delivery',
  async start(params) {
    const config = configOf(params);
    const booted = await boot(config);
    const s = booted.services;
    const app = await buildApp(s, { logger: { level: config.logLevel } });
    // As the server listens (its connection backlog matters when 10,000 polls connect at once).
    await listen(app, config);
    s.dispatcher.start();
    return {
      port: (app.server.address() as AddressInfo).port,
      info: null,
      notes: ['buildApp on the given store, webhook dispatcher running, logger warn'],
      close: async () => {
        await app.close();
        await s.dispatcher.stop();
        await booted.close();
      },
    };
  },
};
