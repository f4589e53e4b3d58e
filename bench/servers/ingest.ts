// Our application for the ingest case, booted as `npm start` boots it (src/bootstrap.ts, buildApp),
// on a fresh SQLite file or a fresh PostgreSQL database (params.store), with `moments` moments by
// as many users already known, for the batches' likes.
//   params: store ('sqlite' or 'postgres', default sqlite), moments (default 1000).
//   PostgreSQL: BENCH_PG_URL (default TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test)
//   names the server where a database is created for the run and dropped afterwards.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { boot } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import type { ServerKind } from '../lib/types.js';

export interface IngestInfo {
  adminToken: string;
  momentIds: string[];
}

const PG_URL = process.env.BENCH_PG_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function onServer(sqlText: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(sqlText);
  } finally {
    await client.end();
  }
}

/** A fresh store: its DATABASE_URL and how to remove it. */
async function freshStore(store: string): Promise<{ url: string; where: string; remove(): Promise<void> }> {
  if (store === 'postgres') {
    const name = `bench_ingest_${randomBytes(6).toString('hex')}`;
    await onServer(`CREATE DATABASE ${name}`);
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      where: `PostgreSQL database ${name}`,
      remove: () => onServer(`DROP DATABASE ${name}`),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-ingest-'));
  return {
    url: `sqlite:${join(dir, 'platform.db')}`,
    where: `SQLite file in ${dir}`,
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}

export const ingestServer: ServerKind = {
  name: 'ingest',
  async start(params) {
    const store = params.store === 'postgres' ? 'postgres' : 'sqlite';
    const moments = typeof params.moments === 'number' ? params.moments : 1000;
    const target = await freshStore(store);
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
    const app = await buildApp(booted.services, { logger: { level: config.logLevel } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const info: IngestInfo = { adminToken, momentIds };
    return {
      port: (app.server.address() as AddressInfo).port,
      info,
      notes: [`buildApp on a fresh ${target.where}, RATE_LIMITS=off; ${moments} moments by as many users`],
      close: async () => {
        await app.close();
        await booted.close();
        await target.remove();
      },
    };
  },
};
