// The operator CLI against a temporary SQLite file: commands run in-process through runCli (exit
// codes and output), a few through a child process, and the synthetic community generator.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { buildApp } from '../app.js';
import { boot } from '../bootstrap.js';
import { loadConfig } from '../config.js';
import { openDb } from '../db/connect.js';
import { defaultMoments, MAX_BATCH, MAX_MOMENTS, SyntheticCommunity, type SyntheticPlan } from '../demo/synthetic.js';
import { runCli } from './run.js';
import { BOT_CREDS_FIELDS } from '../../test/helpers/factories.js';
import { sqliteFolder } from '../../test/helpers/sqlite-folder.js';

const env = {
  ...sqliteFolder('cli-test-').env,
  ADMIN_TOKEN: 'cli-test-admin-token-0123456789',
  RATE_LIMITS: 'off',
};

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(...argv: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    env,
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  });
  return { code, stdout, stderr };
}

const mainScript = fileURLToPath(new URL('./main.ts', import.meta.url));
function cliProcess(...argv: string[]): Run {
  const r = spawnSync(process.execPath, ['--import', 'tsx', mainScript, ...argv], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
let nonce = 0;
const signed = (c: { app_id: string; api_key: string; app_secret: string }) => {
  const n = `n${++nonce}`;
  const t = String(Date.now());
  return { app_id: c.app_id, 'x-api-key': c.api_key, nonce: n, timestamp: t, signature: sha1(c.app_secret + n + t) };
};

/** Runs `body` against the platform on the CLI's store, as the server would see it. */
async function withPlatform(body: (inject: ReturnType<typeof injector>) => Promise<void>): Promise<void> {
  const booted = await boot(loadConfig(env));
  const app = await buildApp(booted.services);
  try {
    await body(injector(app));
  } finally {
    await app.close();
    await booted.close();
  }
}
const injector =
  (app: Awaited<ReturnType<typeof buildApp>>) => async (url: string, headers: Record<string, string>) => {
    const res = await app.inject({ method: 'GET', url, headers });
    return { status: res.statusCode, body: res.json<{ code: number; data: Record<string, unknown> }>() };
  };

describe('cli', () => {
  it('help lists every command; help <command> shows one', async () => {
    const r = await cli('help');
    assert.equal(r.code, 0);
    for (const name of ['migrate', 'seed', 'create-app', 'create-bot', 'ledger-check', 'help']) {
      assert.match(r.stdout, new RegExp(`\\n  ${name} `));
    }
    const one = await cli('help', 'seed');
    assert.equal(one.code, 0);
    assert.match(one.stdout, /seed --users N \[--likes M\]/);
  });

  it('bad usage prints the usage on stderr and exits 2', async () => {
    const cases: string[][] = [
      [],
      ['frobnicate'],
      ['help', 'frobnicate'],
      ['migrate', 'extra'],
      ['seed'],
      ['seed', '--users', '1'],
      ['seed', '--users', 'ten'],
      ['seed', '--users', '5', '--bogus'],
      ['seed', '--users', '5', '--batch', '1001'],
      ['seed', '--users', '3', '--likes', '100', '--moments', '2'],
      ['create-app', '--owner', 'someone'],
      ['create-app', '--owner', 'someone', '--name', 'x', '--redirect-uri', 'ftp://nope'],
      ['create-bot', '--name', 'b'],
      ['create-bot', '--owner', 'someone', '--name', 'x'.repeat(65)],
      ['ledger-check', '--verbose'],
    ];
    for (const argv of cases) {
      const r = await cli(...argv);
      assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /Usage: npm run cli -- /, argv.join(' '));
      assert.equal(r.stdout, '', argv.join(' '));
    }
  });

  it('seed reaches its largest --users; a size that cannot be met names what is over', async () => {
    // 100,000,000 users would take days to load: the default moments are what refused them.
    const users = 100_000_000;
    const likes = 10 * users;
    assert.equal(defaultMoments(users, likes), MAX_MOMENTS);
    assert.ok(likes <= MAX_MOMENTS * (users - 1), 'the default likes fit the moments');
    const r = await cli('seed', '--users', '2', '--likes', '1000000000');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^1000000000 likes do not fit 50000000 moments of 2 users \(at most 50000000\)\n/);
  });

  it('migrate applies the schema once', async () => {
    const first = await cli('migrate');
    assert.equal(first.code, 0, first.stderr);
    // Every migration in src/db/migrations, in order, once.
    const names = readdirSync(fileURLToPath(new URL('../db/migrations/', import.meta.url)))
      .filter((f) => /^\d{4}_.*\.ts$/.test(f))
      .map((f) => f.replace(/\.ts$/, ''))
      .sort();
    assert.ok(names.length >= 3, `migrations: ${names.join(', ')}`);
    assert.equal(first.stdout, names.map((n) => `applied ${n}\n`).join(''));
    const again = await cli('migrate');
    assert.equal(again.stdout, 'schema up to date\n');
  });

  let plan: SyntheticPlan;
  it('seed --users 50 loads the whole community, nothing refused', async () => {
    const r = await cli('seed', '--users', '50', '--seed', '7');
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { plan: SyntheticPlan; applied: number; duplicates: number; refused: number };
    plan = out.plan;
    assert.equal(plan.users, 50);
    assert.equal(plan.likes, 500);
    assert.ok(
      plan.follows > 0 && plan.memberships > 0 && plan.voteCasts > 0 && plan.boxClaims > 0,
      'plan.follows > 0 && plan.memberships > 0 && plan.voteCasts > 0 && p...',
    );
    assert.ok(
      plan.draws > 0 && plan.drawWins > 0 && plan.credits > 0,
      'plan.draws > 0 && plan.drawWins > 0 && plan.credits > 0',
    );
    assert.equal(out.applied, plan.events);
    assert.equal(out.duplicates, 0);
    assert.equal(out.refused, 0);
    assert.equal(r.stderr, '', 'no progress bar off a terminal');
  });

  it('seed is idempotent: the same seed again only finds duplicates', async () => {
    const r = await cli('seed', '--users', '50', '--seed', '7', '--batch', '333');
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { applied: number; duplicates: number; refused: number };
    assert.deepEqual([out.applied, out.duplicates, out.refused], [0, plan.events, 0]);
  });

  it('another seed and size coexist in the same store', async () => {
    const r = await cli('seed', '--users', '20', '--likes', '300', '--seed', '3', '--batch', '7');
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { plan: SyntheticPlan; applied: number; refused: number };
    assert.equal(out.plan.likes, 300);
    assert.equal(out.applied, out.plan.events);
    assert.equal(out.refused, 0);
  });

  it('ledger-check is clean after seeding', async () => {
    const r = await cli('ledger-check');
    assert.equal(r.code, 0, r.stdout);
    const check = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.equal(check.ok, true);
    assert.deepEqual(check.failures, []);
    assert.equal(check.sum_of_balances_cents, 0);
    assert.equal(check.user_balances_cents, check.credited_cents);
    const second = new SyntheticCommunity({ users: 20, likes: 300, seed: 3 }).plan;
    assert.equal(check.credited_cents, plan.creditedCents + second.creditedCents);
  });

  it('seeded data reads back through the API', async () => {
    const community = new SyntheticCommunity({ users: 50, seed: 7 });
    const r = await cli('create-app', '--owner', community.userId(0), '--name', 'Reader');
    const creds = JSON.parse(r.stdout) as { app_id: string; api_key: string; app_secret: string };
    await withPlatform(async (get) => {
      const res = await get(`/openapi/user/info?user_id=${community.userId(5)}`, signed(creds));
      assert.equal(res.status, 200);
      assert.equal(res.body.data.uid, community.userId(5));
      assert.equal(res.body.data.wallet_address, community.wallet(5));
    });
  });

  it('create-bot prints credentials that work', async () => {
    const owner = new SyntheticCommunity({ users: 50, seed: 7 }).userId(1);
    const r = await cli('create-bot', '--owner', owner, '--name', 'Helper', '--description', 'Says hello.');
    assert.equal(r.code, 0, r.stderr);
    const bot = JSON.parse(r.stdout) as Record<string, string>;
    assert.deepEqual(Object.keys(bot).sort(), BOT_CREDS_FIELDS);
    assert.match(bot.evm_address ?? '', /^0x[0-9a-f]{40}$/);
    const creds = { app_id: bot.app_id ?? '', api_key: bot.api_key ?? '', app_secret: bot.app_secret ?? '' };
    await withPlatform(async (get) => {
      const res = await get(`/openapi/user/info?user_id=${bot.bot_user_id ?? ''}`, signed(creds));
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data.name, 'Helper');
      const keyOnly = await get(`/openapi/authorize/userinfo?user_id=${owner}`, { 'x-api-key': creds.api_key });
      assert.equal(keyOnly.status, 200);
      const wrong = await get(`/openapi/user/info?user_id=${owner}`, signed({ ...creds, app_secret: 'f'.repeat(40) }));
      assert.equal(wrong.status, 401);
    });
  });

  it('create-app takes several redirect URIs and prints working credentials', async () => {
    const owner = new SyntheticCommunity({ users: 50, seed: 7 }).userId(2);
    const r = await cli(
      'create-app',
      '--owner',
      owner,
      '--name',
      'Login demo',
      '--redirect-uri',
      'https://client.example/cb',
      '--redirect-uri',
      'http://localhost:3000/cb',
    );
    assert.equal(r.code, 0, r.stderr);
    const creds = JSON.parse(r.stdout) as { app_id: string; api_key: string; app_secret: string };
    assert.deepEqual(Object.keys(creds).sort(), ['api_key', 'app_id', 'app_secret']);
    await withPlatform(async (get) => {
      assert.equal((await get(`/openapi/user/info?user_id=${owner}`, signed(creds))).status, 200);
    });
  });

  it('an unknown owner fails with exit 1 and the error id', async () => {
    for (const command of ['create-app', 'create-bot']) {
      const r = await cli(command, '--owner', 'nobody-here', '--name', 'x');
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^error: unknown_user: /);
      assert.equal(r.stdout, '');
    }
  });

  it('the sixth bot of an owner is refused', async () => {
    const owner = new SyntheticCommunity({ users: 50, seed: 7 }).userId(3);
    for (let i = 0; i < 5; i++) assert.equal((await cli('create-bot', '--owner', owner, '--name', `b${i}`)).code, 0);
    const r = await cli('create-bot', '--owner', owner, '--name', 'b5');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /bot_limit_reached/);
  });

  it('as a process: help exits 0, bad usage 2, a broken ledger 1', async () => {
    const help = cliProcess('help');
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /ledger-check/);
    const bad = cliProcess('seed', '--users');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Usage: npm run cli -- seed/);
    assert.equal(cliProcess('ledger-check').code, 0);

    // One user account gains a hundredth out of nowhere.
    const db = await openDb(env.DATABASE_URL);
    try {
      await db.k
        .updateTable('ledger_accounts')
        .set((eb) => ({ balance_cents: eb('balance_cents', '+', 1) }))
        .where('kind', '=', 'user')
        .where('account_id', '=', (eb) =>
          eb.selectFrom('ledger_accounts').select('account_id').where('kind', '=', 'user').limit(1),
        )
        .execute();
    } finally {
      await db.close();
    }
    const broken = cliProcess('ledger-check');
    assert.equal(broken.code, 1);
    const check = JSON.parse(broken.stdout) as { ok: boolean; failures: string[] };
    assert.equal(check.ok, false);
    assert.deepEqual(check.failures.length, 3, check.failures.join('; '));
    assert.ok(
      check.failures.some((f) => f.includes('not 0')),
      "check.failures.some((f) => f.includes('not 0'))",
    );
    assert.ok(
      check.failures.some((f) => f.includes('credited')),
      "check.failures.some((f) => f.includes('credited'))",
    );
    assert.ok(
      check.failures.some((f) => f.includes('entries')),
      "check.failures.some((f) => f.includes('entries'))",
    );
  });
});

describe('synthetic community', () => {
  const options = { users: 120, likes: 3000, seed: 11 };
  const all = (c: SyntheticCommunity) => [...c.events()];

  it('is deterministic for a seed and differs across seeds', () => {
    const a = all(new SyntheticCommunity(options));
    assert.deepEqual(a, all(new SyntheticCommunity(options)));
    const b = all(new SyntheticCommunity({ ...options, seed: 12, prefix: 's11n120-' }));
    assert.notDeepEqual(
      a.map((e) => e.data),
      b.map((e) => e.data),
    );
  });

  it('matches its plan, in batches of at most 1000, with unique event ids', () => {
    const c = new SyntheticCommunity(options);
    const byType = new Map<string, number>();
    const ids = new Set<string>();
    let events = 0;
    for (const batch of c.batches()) {
      assert.ok(batch.length >= 1 && batch.length <= MAX_BATCH, 'batch.length >= 1 && batch.length <= MAX_BATCH');
      for (const e of batch) {
        events++;
        ids.add(e.id);
        byType.set(e.type, (byType.get(e.type) ?? 0) + 1);
      }
    }
    const p = c.plan;
    assert.equal(events, p.events);
    assert.equal(ids.size, p.events);
    assert.deepEqual(Object.fromEntries(byType), {
      'user.upserted': p.users,
      'group.upserted': p.groups,
      'group.member.joined': p.memberships,
      'moment.created': p.moments,
      'follow.created': p.follows,
      'moment.liked': p.likes,
      'vote.cast': p.voteCasts,
      'lucky_draw.created': p.draws,
      'lucky_draw.entered': p.drawEntries,
      'lucky_draw.won': p.drawWins,
      'lucky_box.sent': p.boxes,
      'lucky_box.claimed': p.boxClaims,
      'points.credited': p.credits,
    });
    assert.deepEqual(
      [...c.batches(7)].map((b) => b.length).reduce((s, n) => s + n, 0),
      p.events,
    );
  });

  it('creates what it refers to first; likes are distinct and never by the author', () => {
    const c = new SyntheticCommunity(options);
    const known = new Set<string>();
    const authors = new Map<string, string>();
    const likes = new Set<string>();
    const followers = new Map<string, number>();
    for (const { type, data } of c.events()) {
      const d = data as Record<string, string>;
      const need = (...ids: (string | undefined)[]) => {
        for (const id of ids) if (id !== undefined) assert.ok(known.has(id), `${type} refers to unknown ${id}`);
      };
      if (type === 'user.upserted') known.add(d.user_id ?? '');
      else if (type === 'group.upserted') {
        need(d.owner_id);
        known.add(d.group_id ?? '');
      } else if (type === 'moment.created') {
        need(d.author_id);
        known.add(d.moment_id ?? '');
        authors.set(d.moment_id ?? '', d.author_id ?? '');
      } else if (type === 'moment.liked') {
        need(d.moment_id, d.user_id);
        assert.notEqual(authors.get(d.moment_id ?? ''), d.user_id);
        const key = `${d.moment_id ?? ''}|${d.user_id ?? ''}`;
        assert.ok(!likes.has(key), `like ${key} twice`);
        likes.add(key);
      } else if (type === 'follow.created') {
        need(d.follower_id, d.followed_id);
        assert.notEqual(d.follower_id, d.followed_id);
        followers.set(d.followed_id ?? '', (followers.get(d.followed_id ?? '') ?? 0) + 1);
      } else if (type === 'lucky_draw.created') {
        need(d.group_id, d.initiator_id);
        known.add(d.draw_id ?? '');
      } else if (type === 'lucky_box.sent') {
        need(d.sender_id, d.group_id);
        known.add(d.box_id ?? '');
      } else {
        need(d.group_id, d.user_id, d.draw_id, d.box_id, d.moment_id);
      }
    }
    assert.equal(likes.size, options.likes);
    // A few popular users: the most followed has many times the average.
    const counts = [...followers.values()].sort((a, b) => b - a);
    const average = counts.reduce((s, n) => s + n, 0) / options.users;
    assert.ok((counts[0] ?? 0) > 5 * average, `top ${counts[0]} vs average ${average}`);
  });

  it('refuses sizes that cannot hold the likes', () => {
    assert.throws(() => new SyntheticCommunity({ users: 1 }), RangeError);
    assert.throws(() => new SyntheticCommunity({ users: 3, likes: 7, moments: 3 }), RangeError);
    assert.equal(new SyntheticCommunity({ users: 3, likes: 6, moments: 3 }).plan.likes, 6);
  });
});
