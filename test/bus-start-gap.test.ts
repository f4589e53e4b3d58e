// An instance killed after a commit and before its announcement went out through Redis: nothing
// else tells the other instances, whose caches would keep the old row (a reset App Key accepted
// for up to 5 minutes). Started again and serving, the instance announces a gap (src/server.ts
// calls announceStart), and the others forget what they cached; a boot that does not serve (a CLI
// command, a start that fails) announces none. Two instances on one SQLite file, each with its own
// connections to one Redis.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { withServices } from '../src/cli/io.js';
import { UnitOfWork } from '../src/db/work.js';
import { Invalidations } from '../src/lib/invalidation.js';
import { type Bus, LocalBus, openSharedState } from '../src/lib/shared-state.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './helpers/app.js';
import { botCall, failed, result } from './helpers/delivery.js';
import { createBot, createUsers } from './helpers/factories.js';
import { REDIS_URL, redisTestPrefix, redisUnderTest } from './helpers/stores.js';

const BAD_KEY = 'You X-API-KEY is not available';
const BOUNDED = { timeout: 30_000 };

const ready = await redisUnderTest('the start-up gap test');

/**
 * Resolves once `to` hears a message published through `from`'s bus: by then every message `from`
 * published before (a start-up gap) has reached `to`. Published again until heard, since `to`'s
 * subscription takes effect a moment after it is asked for.
 */
async function settled(from: Bus, to: Bus): Promise<void> {
  const channel = `test:marker:${randomBytes(6).toString('hex')}`;
  const marker = { heard: false };
  const off = to.subscribe(channel, () => {
    marker.heard = true;
  });
  try {
    for (let i = 0; !marker.heard && i < 200; i++) {
      from.publish(channel, 'marker');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  } finally {
    off();
  }
  assert.ok(marker.heard, 'the marker went through Redis');
}

await describe('a restarted instance announces a gap at start (SQLite + Redis)', { skip: !ready }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'op-start-gap-'));
  const sqliteFile = join(dir, 'platform.db');
  const encryptionKey = randomBytes(32);
  // One platform: its instances share a prefix that no other test file's instances use.
  const prefix = redisTestPrefix();
  const start = async () =>
    startTestApp('sqlite', { sqliteFile, encryptionKey, shared: await openSharedState(REDIS_URL, { prefix }) });
  const instances: TestApp[] = [];
  before(async () => {
    instances.push(await start(), await start());
  });
  after(async () => {
    for (const i of instances) await i.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'a key reset the killed instance committed but never announced stops the old key on the other, once it is back',
    BOUNDED,
    async () => {
      const [a, b] = instances;
      if (a === undefined || b === undefined) throw new Error('instances not started');
      await settled(a.services.shared.bus, b.services.shared.bus);
      await settled(b.services.shared.bus, b.services.shared.bus);
      const heard = { gaps: 0 };
      b.services.shared.bus.onGap(() => heard.gaps++);
      const [owner] = await createUsers(a.app, 1);
      assert.ok(owner !== undefined, 'owner');
      const bot = await createBot(a.app, owner.user_id, 'Restarted');
      result(await botCall(b.app, 'getMe', bot.api_key), 'cached on B');
      // A's last write: committed, and its announcement never left the process (killed before the
      // publish), which a unit of work announcing to this process alone stands for.
      const silent = new UnitOfWork(a.services.db, a.services.clock, new Invalidations(new LocalBus()));
      const { developers } = a.services;
      const fresh = await silent.run((w) => developers.resetKey(w, owner.user_id, bot.app_id, 'bot'));
      await a.close();
      instances.splice(0, 1);
      result(await botCall(b.app, 'getMe', bot.api_key), 'the old key, cached, still accepted on B');

      // A CLI command (a cron's ledger-check, say) boots on the same store and Redis and does not
      // serve: it tells the others nothing, or each run would flush every instance's caches and
      // answer their held polls empty. Its marker reaches B after any gap it sent.
      const env = {
        DATABASE_URL: `sqlite:${sqliteFile}`,
        REDIS_URL,
        REDIS_PREFIX: prefix,
        ENCRYPTION_KEY: encryptionKey.toString('base64'),
        ADMIN_TOKEN,
      };
      const quiet = { write: () => true };
      await withServices({ env, stdout: quiet, stderr: quiet }, (services) =>
        settled(services.shared.bus, b.services.shared.bus),
      );
      assert.equal(heard.gaps, 0, 'a boot that does not serve sends no gap');

      // A starts again, on the same store and Redis, and serves: it tells the others a gap.
      const gap = new Promise<void>((resolve) => {
        const off = b.services.shared.bus.onGap(() => {
          off();
          resolve();
        });
      });
      const restarted = await start();
      instances.push(restarted);
      // As src/server.ts does once it listens.
      restarted.services.shared.bus.announceStart();
      const none = new Promise<never>((_, reject) => {
        setTimeout(() => {
          reject(new Error('B heard no gap within 5 s of the restart'));
        }, 5_000).unref();
      });
      await Promise.race([gap, none]);
      failed(await botCall(b.app, 'getMe', bot.api_key), 400, BAD_KEY, 'old key on B');
      result(await botCall(b.app, 'getMe', fresh), 'new key on B');
    },
  );
});
