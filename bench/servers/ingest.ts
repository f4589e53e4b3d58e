// Our application for the ingest case, booted as `npm start` boots it (src/bootstrap.ts, buildApp),
// on a fresh SQLite file or a fresh PostgreSQL database (params.store), with `moments` moments by
// as many users already known, for the batches' likes.
//   params: store ('sqlite' or 'postgres', default sqlite), moments (default 1000), and for the
//   message mix (bench/lib/chat.ts) bots, groups, botsPerGroup, chatUsers (default 0: no chat world).
//   PostgreSQL: BENCH_PG_URL names the server where a database is created and dropped (lib/store.ts).
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../src/app.js';
import { boot } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import { buildChatWorld, type ChatWorld } from '../lib/chat.js';
import { freshStore, storeKind } from '../lib/store.js';
import { numParam, type ServerKind } from '../lib/types.js';

export interface IngestInfo {
  adminToken: string;
  momentIds: string[];
  /** With params.bots: users, bots and groups for message.created batches. */
  chat: ChatWorld | null;
}

export const ingestServer: ServerKind = {
  name: 'ingest',
  async start(params) {
    const moments = numParam(params, 'moments', 1000);
    const target = await freshStore(storeKind(params.store), 'ingest');
    const adminToken = randomBytes(24).toString('hex');
    const config = loadConfig({
      DATABASE_URL: target.url,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ADMIN_TOKEN: adminToken,
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: '0',
    });
    const booted = await boot(config);
    const momentIds = Array.from({ length: moments }, (_, i) => `bench-moment-${i}`);
    const seeded = await booted.services.events.ingest(
      momentIds.flatMap((id, i) => [
        {
          id: `seed-user-${i}`,
          type: 'user.upserted',
          data: { user_id: `bench-author-${i}`, name: `author ${i}`, wallet_address: `0xa${i}` },
        },
        { id: `seed-${id}`, type: 'moment.created', data: { moment_id: id, author_id: `bench-author-${i}` } },
      ]),
    );
    if (seeded.refused.length > 0) throw new Error(`ingest seed refused: ${JSON.stringify(seeded.refused)}`);
    const bots = numParam(params, 'bots', 0);
    const chat =
      bots === 0
        ? null
        : await buildChatWorld(
            {
              ingest: async (events) => {
                const r = await booted.services.events.ingest(events);
                if (r.refused.length > 0) throw new Error(`chat world refused: ${JSON.stringify(r.refused[0])}`);
              },
              createBot: (owner, name) => booted.services.apps.createBot({ owner_user_id: owner, name }),
            },
            {
              users: numParam(params, 'chatUsers', 200),
              bots,
              groups: numParam(params, 'groups', 20),
              botsPerGroup: numParam(params, 'botsPerGroup', 3),
            },
            'w',
          );
    const app = await buildApp(booted.services, { logger: { level: config.logLevel } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const info: IngestInfo = { adminToken, momentIds, chat };
    return {
      port: (app.server.address() as AddressInfo).port,
      info,
      notes: [
        `buildApp on a fresh ${target.where}, RATE_LIMITS=off; ${moments} moments by as many users`,
        ...(chat === null
          ? []
          : [
              `chat: ${chat.users.length} users, ${chat.bots.length} bots (long polling, nobody polls), ` +
                `${chat.groups.length} groups with ${chat.groups[0]?.bots.length ?? 0} bots each`,
            ]),
      ],
      close: async () => {
        await app.close();
        await booted.close();
        await target.remove();
      },
    };
  },
};
