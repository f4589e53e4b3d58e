// Our application as `npm run serve` builds it (buildApp from src/app.ts, same logger options),
// on a fresh SQLite file in a temporary directory, with the demo and a synthetic community loaded
// and one app created for the load generator.
//   params: users (default 2000), likes (default 10 per user), seed (default 1),
//           logLevel (default 'warn'), sampleUsers (ids handed to the load generator, default 1000)
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.js';
import { boot } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import { ensureDemo } from '../../src/demo/demo.js';
import { SyntheticCommunity } from '../../src/demo/synthetic.js';
import type { AppCredentials } from '../lib/signing.js';
import type { Params, ServerKind } from '../lib/types.js';

export interface PlatformInfo {
  creds: AppCredentials;
  bot: AppCredentials;
  botGroupId: string;
  userIds: string[];
  /** The sampled users' wallets on chain 1, in the same order as userIds. */
  wallets: string[];
  groupUrls: string[];
  momentIds: string[];
}

const num = (p: Params, key: string, fallback: number): number => {
  const v = p[key];
  return typeof v === 'number' ? v : fallback;
};

export const platformServer: ServerKind = {
  name: 'platform',
  async start(params) {
    const users = num(params, 'users', 2000);
    const likes = num(params, 'likes', 10 * users);
    const seed = num(params, 'seed', 1);
    const sample = Math.min(users, num(params, 'sampleUsers', 1000));
    const logLevel = typeof params.logLevel === 'string' ? params.logLevel : 'warn';

    const dir = mkdtempSync(join(tmpdir(), 'bench-platform-'));
    const config = loadConfig({
      DATABASE_URL: `sqlite:${join(dir, 'platform.db')}`,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ADMIN_TOKEN: randomBytes(24).toString('hex'),
      RATE_LIMITS: 'off',
      LOG_LEVEL: logLevel,
      HOST: '127.0.0.1',
      PORT: '0',
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
      botGroupId,
      userIds: Array.from({ length: sample }, (_, i) => community.userId(Math.floor(i * step))),
      wallets: Array.from({ length: sample }, (_, i) => community.wallet(Math.floor(i * step))),
      groupUrls: Array.from({ length: community.plan.groups }, (_, g) => community.inviteUrl(g)),
      momentIds: Array.from({ length: Math.min(community.plan.moments, 1000) }, (_, m) => community.momentId(m)),
    };
    const p = community.plan;
    return {
      port: (app.server.address() as AddressInfo).port,
      info,
      notes: [
        `buildApp (src/app.ts) on a fresh SQLite file in ${dir}, RATE_LIMITS=off, logger level '${config.logLevel}'`,
        `data: demo + synthetic seed ${seed}: ${p.users} users, ${p.follows} follows, ${p.groups} groups, ` +
          `${p.moments} moments, ${p.likes} likes, ${p.events} events in ${seededS.toFixed(1)} s`,
      ],
      close: async () => {
        await app.close();
        await booted.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};
