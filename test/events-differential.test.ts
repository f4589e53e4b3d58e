// issue 15: the set-based event pipeline gives exactly what applying the events one by one gives.
// Random batches (duplicate ids within and across batches, refusals, events that depend on earlier
// ones of the same batch) go to two stores of one kind: the set-based pipeline on one, the plain
// one-at-a-time reference on the other; answers, touched cache keys and every table must match.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import type { Db } from '../src/db/connect.js';
import type { PrivateMessagePolicy } from '../src/db/types.js';
import { ASSISTANT_USER_ID } from '../src/db/migrations/0003_developers.js';
import type { ApplyMode } from '../src/modules/events/service.js';
import { FakeClock, startTestApp, type TestApp } from './helpers/app.js';
import { storesUnderTest } from './helpers/stores.js';

interface Ev {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

/**
 * Bots both stores hold before the first batch (the same ids on both), one of each kind the delivery
 * rules tell apart: private-message setting, and whether it listens to every group message.
 */
const BOTS: readonly { id: string; policy: PrivateMessagePolicy; listens: boolean }[] = [
  { id: 'bot0', policy: 'everyone', listens: true },
  { id: 'bot1', policy: 'everyone', listens: false },
  { id: 'bot2', policy: 'following', listens: false },
  { id: 'bot3', policy: 'friends', listens: true },
];

async function seedBots(db: Db, now: number): Promise<void> {
  for (const [i, b] of BOTS.entries()) {
    await db.k
      .insertInto('users')
      .values({
        user_id: b.id,
        name: `Bot ${i}`,
        wallet_address: `0xb${i}`,
        avatar: '',
        level: 0,
        level_icon: '',
        is_bot: 1,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await db.k
      .insertInto('bots')
      .values({
        bot_user_id: b.id,
        app_id: `app-${b.id}`,
        owner_user_id: 'owner',
        description: '',
        evm_address: `0xb${i}`,
        private_message_policy: b.policy,
        group_invite_policy: 'everyone',
        webhook_url: null,
        webhook_key_enc: null,
        payload_format: 'update',
        last_update_id: 0,
        last_error_at: null,
        last_error_message: null,
        created_at: now,
        allowed_updates: null,
      })
      .execute();
    if (b.listens) {
      await db.k
        .insertInto('bot_permissions')
        .values({ bot_user_id: b.id, permission: 'listen_group_messages', granted_at: now })
        .execute();
    }
  }
}

/** Every event type the generator knows, over a small world of ids so that events collide. */
function batchesOf(run: string) {
  const pick = (prefix: string, n: number) =>
    fc.constantFrom(...Array.from({ length: n }, (_, i) => `${run}${prefix}${i}`));
  // u3 is not in the world below: any batch may create it, then like and follow with it.
  const user = pick('u', 4);
  const bot = fc.constantFrom(...BOTS.map((b) => b.id));
  /** Anyone a message or a follow may name: users, bots, and now and then nobody known. */
  const someone = fc.oneof(
    { arbitrary: user, weight: 8 },
    { arbitrary: bot, weight: 6 },
    { arbitrary: fc.constant(`${run}nobody`), weight: 1 },
  );
  const messageCommon = {
    message_id: pick('msg', 16),
    from_user_id: fc.oneof({ arbitrary: user, weight: 5 }, { arbitrary: someone, weight: 1 }),
    kind: fc.constantFrom('text', 'command', 'image'),
    text: fc.option(fc.constantFrom('hi', 'yo'), { nil: undefined }),
    mention_user_ids: fc.option(fc.array(someone, { maxLength: 2 }), { nil: undefined }),
  };
  const moment = pick('m', 2);
  const group = pick('g', 2);
  const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
  const data: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
    'user.upserted': fc.record(
      {
        user_id: user,
        name: fc.constantFrom('Ann', 'Bo'),
        // Case differs between events naming one wallet: wallets compare without case.
        wallet_address: fc
          .tuple(fc.constantFrom('0xaa', '0xbb', '0xcc', '0xdd', '0xee', '0xff'), fc.boolean())
          .map(([w, up]) => {
            const address = `${w}${run}`;
            return up ? address.toUpperCase() : address;
          }),
        avatar: opt(fc.constantFrom('a.png', 'b.png')),
        level: opt(fc.integer({ min: 0, max: 9 })),
        level_icon: opt(fc.constantFrom('i1', 'i2')),
        chain_id: opt(fc.constantFrom(1, 2)),
      },
      { requiredKeys: ['user_id', 'name', 'wallet_address'] },
    ),
    'follow.created': fc.record({ follower_id: someone, followed_id: someone }),
    'follow.deleted': fc.record({ follower_id: someone, followed_id: someone }),
    'moment.created': fc.record({ moment_id: moment, author_id: user }),
    'moment.liked': fc.record({ moment_id: moment, user_id: user }),
    'moment.unliked': fc.record({ moment_id: moment, user_id: user }),
    'group.upserted': fc.record(
      {
        group_id: group,
        name: fc.constantFrom('G', 'H'),
        invite_url: pick('https://g.example/', 3),
        maximum: opt(fc.integer({ min: 0, max: 3 })),
        owner_id: opt(user),
      },
      { requiredKeys: ['group_id', 'name', 'invite_url'] },
    ),
    'group.member.joined': fc.record(
      {
        group_id: group,
        user_id: fc.oneof(user, bot),
        role: opt(fc.constantFrom('member', 'moderator', 'admin')),
        invited_by: opt(user),
      },
      { requiredKeys: ['group_id', 'user_id'] },
    ),
    'group.member.left': fc.record({ group_id: group, user_id: user }),
    'vote.cast': fc.record({ vote_id: pick('v', 2), group_id: group, user_id: user }),
    'message.created': fc.oneof(
      fc.record(
        {
          ...messageCommon,
          chat_type: fc.constant('group'),
          group_id: fc.oneof({ arbitrary: group, weight: 6 }, { arbitrary: fc.constant(`${run}nogroup`), weight: 1 }),
        },
        { requiredKeys: ['message_id', 'from_user_id', 'kind', 'chat_type', 'group_id'] },
      ),
      fc.record(
        {
          ...messageCommon,
          chat_type: fc.constant('private'),
          // Now and then the assistant, whose messages apply on their own and end a run.
          to_user_id: fc.oneof(
            { arbitrary: bot, weight: 4 },
            { arbitrary: someone, weight: 4 },
            { arbitrary: fc.constant(ASSISTANT_USER_ID), weight: 1 },
          ),
        },
        { requiredKeys: ['message_id', 'from_user_id', 'kind', 'chat_type', 'to_user_id'] },
      ),
    ),
  };
  // The measured mix's types weigh more, so that their runs are long and interleave with the rest.
  const weights: Record<string, number> = {
    'user.upserted': 4,
    'moment.liked': 4,
    'follow.created': 2,
    'moment.created': 2,
    'message.created': 6,
  };
  // Now and then keys no type names (one is a field of the other kind of message): both ways ignore them.
  const extra = fc.option(fc.constantFrom({ bio: 'x' }, { note: [1], to_user_id: `${run}u0` }), { nil: {} });
  const event: fc.Arbitrary<Ev> = fc
    .oneof(
      ...Object.entries(data).map(([type, d]) => ({
        arbitrary: fc.record({ id: pick('e', 50), type: fc.constant(type), data: d, extra }),
        weight: weights[type] ?? 1,
      })),
    )
    .map(({ extra: more, ...e }) => ({
      ...e,
      data: { ...more, ...Object.fromEntries(Object.entries(e.data).filter(([, v]) => v !== undefined)) },
    }));
  // A world every run builds, its events shuffled into the first batch's: what depends on them is
  // sometimes refused (sent before) and sometimes applied (sent after).
  const world: Ev[] = [
    ...[0, 1, 2].map((i) => ({
      id: `${run}p-u${i}`,
      type: 'user.upserted',
      data: { user_id: `${run}u${i}`, name: 'W', wallet_address: `0xw${i}${run}` },
    })),
    { id: `${run}p-m`, type: 'moment.created', data: { moment_id: `${run}m0`, author_id: `${run}u0` } },
    { id: `${run}p-g`, type: 'group.upserted', data: { group_id: `${run}g0`, name: 'W', invite_url: `${run}w` } },
    { id: `${run}p-g1`, type: 'group.upserted', data: { group_id: `${run}g1`, name: 'V', invite_url: `${run}v` } },
    { id: `${run}p-j`, type: 'group.member.joined', data: { group_id: `${run}g0`, user_id: `${run}u1` } },
    ...[
      ['g0', 'bot0'],
      ['g0', 'bot1'],
      ['g0', 'bot3'],
      ['g1', 'bot1'],
      ['g1', 'bot2'],
    ].map(([g, b]) => ({
      id: `${run}p-j${g}${b}`,
      type: 'group.member.joined',
      data: { group_id: `${run}${g}`, user_id: b },
    })),
    ...[
      ['bot2', `${run}u0`],
      ['bot3', `${run}u1`],
      [`${run}u1`, 'bot3'],
    ].map(([follower, followed], i) => ({
      id: `${run}p-f${i}`,
      type: 'follow.created',
      data: { follower_id: follower, followed_id: followed },
    })),
    {
      id: `${run}p-w`,
      type: 'message.created',
      data: { message_id: `${run}w`, chat_type: 'group', from_user_id: `${run}u1`, group_id: `${run}g0`, kind: 'text' },
    },
  ];
  const batch = fc.array(event, { minLength: 1, maxLength: 60 });
  return fc
    .tuple(batch, fc.array(batch, { maxLength: 3 }))
    .chain(([first, rest]) =>
      fc
        .shuffledSubarray([...world, ...first], { minLength: world.length + first.length })
        .map((shuffled) => [shuffled, ...rest]),
    );
}

const MIGRATIONS = /^kysely_migration/;

async function tableNames(db: Db): Promise<string[]> {
  const rows =
    db.dialect === 'sqlite'
      ? (
          await sql<{
            name: string;
          }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db.k)
        ).rows
      : (
          await sql<{
            name: string;
          }>`select table_name as name from information_schema.tables where table_schema = ${db.schema ?? 'public'}`.execute(
            db.k,
          )
        ).rows;
  return rows
    .map((r) => r.name)
    .filter((n) => !MIGRATIONS.test(n))
    .sort();
}

/** Numbers the store draws from a sequence (migration 0005): PostgreSQL spends one on an insert that meets a conflict. */
const DRAWN = new Set(['telegram_id', 'telegram_message_id']);

/** Each drawn number replaced by its rank in its column: the order they were drawn in, not the gaps. */
function ranked(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((c) => DRAWN.has(c));
  const ranks = new Map(
    columns.map((c) => {
      const values = [...new Set(rows.map((r) => Number(r[c])))].sort((a, b) => a - b);
      return [c, new Map(values.map((v, i) => [v, i]))];
    }),
  );
  return rows.map((r) =>
    Object.fromEntries(
      Object.entries(r).map(([k, v]) => [
        k,
        typeof v === 'string' && GENERATED.test(v) ? GENERATED_ID : (ranks.get(k)?.get(Number(v)) ?? v),
      ]),
    ),
  );
}

/** Ids the platform makes itself (the assistant's replies in the outbox): random, so only their place is compared. */
const GENERATED = /^msg_[0-9a-z]+$/;
const GENERATED_ID = 'msg_(generated)';

/**
 * Every table, row for row. Rows with a sequence column keep its order but not its values, and
 * drawn numbers keep their order (PostgreSQL spends sequence values on inserts that meet a
 * conflict, which the one-by-one path makes more of); the other rows are sorted.
 */
async function dump(db: Db): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of await tableNames(db)) {
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db.k)).rows;
    const hasSeq = rows.some((r) => 'seq' in r);
    const ordered = hasSeq ? [...rows].sort((a, b) => Number(a.seq) - Number(b.seq)) : rows;
    const lines = ranked(ordered).map((r) =>
      JSON.stringify(Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'seq'))),
    );
    out[table] = hasSeq ? lines : lines.sort();
  }
  return out;
}

for (const store of await storesUnderTest()) {
  await describe(`set-based event pipeline = one by one [${store}]`, () => {
    const clock = new FakeClock();
    let fast: TestApp | undefined;
    let reference: TestApp | undefined;
    /** What each store held before the first batch (the assistant's user, made at start-up with the real time). */
    const baseline = new Map<TestApp, Record<string, string[]>>();
    before(async () => {
      fast = await startTestApp(store, { clock });
      reference = await startTestApp(store, { clock });
      for (const t of [fast, reference]) {
        await seedBots(t.services.db, clock.ms);
        baseline.set(t, await dump(t.services.db));
      }
    });
    /** The rows the batches left: each table without the rows it had before them. */
    const changes = async (t: TestApp): Promise<Record<string, string[]>> => {
      const before = baseline.get(t) ?? {};
      const now = await dump(t.services.db);
      return Object.fromEntries(
        Object.entries(now).map(([table, rows]) => [table, rows.filter((r) => !(before[table] ?? []).includes(r))]),
      );
    };
    after(async () => {
      await fast?.close();
      await reference?.close();
    });

    const both = () => {
      if (fast === undefined || reference === undefined) throw new Error('apps not started');
      return { fast, reference };
    };
    const applyOn = (t: TestApp, batch: Ev[], mode: ApplyMode) =>
      t.services.events.apply(batch, mode).then(({ result, touched }) => ({ result, touched: [...touched].sort() }));

    it('gives the same answers, touched keys and rows for random batches', async () => {
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constant(null).chain(() => batchesOf(`r${runs++}-`)),
          async (batches) => {
            const { fast: f, reference: r } = both();
            for (const [i, batch] of batches.entries()) {
              clock.advance(1000);
              const got = await applyOn(f, batch, 'set-based');
              const want = await applyOn(r, batch, 'one-by-one');
              assert.deepEqual(got, want, `batch ${i}: answer and touched keys`);
            }
            assert.deepEqual(await changes(f), await changes(r), 'every table, row for row');
          },
        ),
        { numRuns: store === 'sqlite' ? 60 : 30, endOnFailure: true, includeErrorInReport: true },
      );
    });

    it('exercises what it claims to: applied events, several refusals, rows in the tables it checks', async () => {
      const { fast: f } = both();
      const counts = await sql<{ outcome: string; n: number }>`select coalesce(reason, status) as outcome,
        count(*) as n from processed_events group by coalesce(reason, status)`.execute(f.services.db.k);
      const by = Object.fromEntries(counts.rows.map((c) => [c.outcome, c.n]));
      const refusals = Object.entries(by).filter(([k]) => k !== 'applied');
      assert.ok((by.applied ?? 0) > 100, `applied events recorded: ${JSON.stringify(by)}`);
      assert.ok(refusals.length >= 5, `several kinds of refusal: ${JSON.stringify(by)}`);
      const d = await changes(f);
      for (const table of [
        'users',
        'wallets',
        'follows',
        'moments',
        'moment_likes',
        'group_members',
        'chat_messages',
        'updates',
      ]) {
        assert.ok((d[table]?.length ?? 0) > 0, `rows in ${table}; outcomes ${JSON.stringify(by)}`);
      }
    });
  });
}
