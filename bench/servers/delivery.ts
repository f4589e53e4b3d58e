// Our application for the delivery benchmarks: a few users, `bots` bots (five per owner, the
// limit), webhooks allowed to loopback (WEBHOOK_ALLOW_INSECURE=1), the webhook dispatcher running.
//   params: bots (default 2), logLevel (default 'warn')
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.js';
import { boot } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import type { ServerKind } from '../lib/types.js';

export interface DeliveryInfo {
  adminToken: string;
  /** A user who writes to the bots. */
  userId: string;
  bots: { bot_user_id: string; api_key: string }[];
}

export const deliveryServer: ServerKind = {
  name: 'delivery',
  async start(params) {
    const botCount = typeof params.bots === 'number' ? params.bots : 2;
    const dir = mkdtempSync(join(tmpdir(), 'bench-delivery-'));
    const adminToken = randomBytes(24).toString('hex');
    const config = loadConfig({
      DATABASE_URL: `sqlite:${join(dir, 'platform.db')}`,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ADMIN_TOKEN: adminToken,
      RATE_LIMITS: 'off',
      WEBHOOK_ALLOW_INSECURE: '1',
      LOG_LEVEL: typeof params.logLevel === 'string' ? params.logLevel : 'warn',
    });
    const booted = await boot(config);
    const s = booted.services;
    const owners = Math.ceil(botCount / 5) + 1;
    const users = Array.from({ length: owners }, (_, i) => ({
      id: `bench-${i}`,
      type: 'user.upserted',
      data: { user_id: `u${i}`, name: `User ${i}`, wallet_address: `0x${String(i).padStart(40, '0')}`, level: 5 },
    }));
    for (let i = 0; i < users.length; i += 1000) await s.events.ingest(users.slice(i, i + 1000));
    const bots: DeliveryInfo['bots'] = [];
    for (let i = 0; i < botCount; i++) {
      const b = await s.apps.createBot({ owner_user_id: `u${1 + Math.floor(i / 5)}`, name: `Bot ${i}` });
      bots.push({ bot_user_id: b.bot_user_id, api_key: b.api_key });
    }
    const app = await buildApp(s, { logger: { level: config.logLevel } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    s.dispatcher.start();
    const info: DeliveryInfo = { adminToken, userId: 'u0', bots };
    return {
      port: (app.server.address() as AddressInfo).port,
      info,
      notes: [
        `buildApp on a fresh SQLite file, ${botCount} bots, webhook dispatcher running, logger '${config.logLevel}'`,
      ],
      close: async () => {
        await app.close();
        await s.dispatcher.stop();
        await booted.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};
