// Set-based SQL for runs of user events (see events/rows.ts): each statement takes all of a run's
// rows as one JSON parameter.
import { type BatchContext, json, jsonList, PerBatch, run, statement, type Statement } from '../events/index.js';
import { drawTelegramNumbers, type UserFields } from './repo.js';

/**
 * What a batch has learnt about users: those known to exist (users are never deleted, so this
 * stays true until the batch ends), and those its upserts created, which nothing older refers to.
 */
const seen = new PerBatch(() => ({ known: new Set<string>(), created: new Set<string>() }));

const existing = statement(
  (_, list) => `SELECT user_id FROM users WHERE user_id IN (SELECT r.id FROM ${list('id')} AS r)`,
);

/** The users known to exist in this batch, which now include every one of `userIds` that exists. */
export async function knownUsers(ctx: BatchContext, userIds: Iterable<string>): Promise<ReadonlySet<string>> {
  const { known } = seen.of(ctx);
  const unread = new Set<string>();
  for (const id of userIds) if (!known.has(id)) unread.add(id);
  if (unread.size > 0) {
    for (const r of await run<{ user_id: string }>(ctx, existing, [jsonList(unread)])) known.add(r.user_id);
  }
  return known;
}

/** The users this batch created (so far; SQLite only): no row written before the batch names them. */
const createdUsers = (ctx: BatchContext): ReadonlySet<string> => seen.of(ctx).created;

const byId = statement(
  (_, list) => `SELECT user_id, name, wallet_address, avatar, level, level_icon, is_bot FROM users
    WHERE user_id IN (SELECT r.id FROM ${list('id')} AS r)`,
);

/**
 * byId for a run that merges into the rows and writes them back (user.upserted): on PostgreSQL the
 * rows are locked until the batch commits, so a concurrent batch upserting one of them waits, then
 * reads what this one wrote, rather than writing back fields read before this one committed (READ
 * COMMITTED). In key order, so two such batches lock their common users in the same order.
 * SQLite has no FOR UPDATE, and its one writer runs one batch at a time.
 */
const byIdLocked: Statement = { sqlite: byId.sqlite, postgres: `${byId.postgres} ORDER BY user_id FOR UPDATE` };

/**
 * The users of `userIds` that exist (remembered as known for the rest of the batch); `forUpdate`:
 * locked, for the caller to merge into and write back (see byIdLocked).
 */
export async function findUsers(
  ctx: BatchContext,
  userIds: Iterable<string>,
  forUpdate = false,
): Promise<UserFields[]> {
  const rows = await run<UserFields>(ctx, forUpdate ? byIdLocked : byId, [jsonList(userIds)]);
  const { known } = seen.of(ctx);
  for (const u of rows) known.add(u.user_id);
  return rows;
}

const insertInto = (numbered: boolean, onConflict: string) =>
  statement(
    (
      rows,
    ) => `INSERT INTO users (user_id, name, wallet_address, avatar, level, level_icon, is_bot, created_at, updated_at${numbered ? ', telegram_id' : ''})
    SELECT r.user_id, r.name, r.wallet_address, r.avatar, r.level, r.level_icon, r.is_bot, ?, ?${numbered ? ', r.telegram_id' : ''}
    FROM ${rows({ user_id: 'text', name: 'text', wallet_address: 'text', avatar: 'text', level: 'int', level_icon: 'text', is_bot: 'int', ...(numbered ? { telegram_id: 'int' as const } : {}) })} AS r
    WHERE true ORDER BY r.ord${onConflict}`,
  );
/**
 * The users the run read (locked): each row written back whole. An upsert all the same, which
 * numbers no row on either store.
 */
const writeBack = insertInto(
  false,
  `
    ON CONFLICT (user_id) DO UPDATE SET name = excluded.name, wallet_address = excluded.wallet_address,
      avatar = excluded.avatar, level = excluded.level, level_icon = excluded.level_icon, updated_at = excluded.updated_at`,
);
/**
 * The users the run did not find, with no ON CONFLICT: one a concurrent batch created meanwhile
 * (PostgreSQL) fails the statement with a unique violation (23505), so the batch is retried
 * (db/retry.ts) and reads that user, locked, rather than overwriting the fields it was given.
 * On SQLite new users carry the Telegram numbers drawn for them here (the trigger of migration
 * 0005 numbers only rows without one, one row at a time); PostgreSQL's column default draws them
 * from its sequence.
 */
const insert: Statement = { sqlite: insertInto(true, '').sqlite, postgres: insertInto(false, '').postgres };
const statsRows = statement(
  (_, list) => `INSERT INTO user_stats (user_id) SELECT r.id FROM ${list('id')} AS r WHERE true
    ON CONFLICT (user_id) DO NOTHING`,
);

/** The first of `count` user numbers drawn from migration 0005's SQLite counter, in one statement. */
async function drawUserNumbers(ctx: BatchContext, count: number): Promise<number> {
  return (await drawTelegramNumbers(ctx.tx, 'user', count)) - count + 1;
}

/**
 * upsertUser (repo.ts) for many users at once, each named once; `created` are those of them that
 * findUsers did not find (read with forUpdate), inserted and numbered in the order given, as one
 * upsert after another would number them; the others are written back.
 */
export async function upsertUsers(
  ctx: BatchContext,
  users: readonly UserFields[],
  created: ReadonlySet<string>,
): Promise<void> {
  if (users.length === 0) return;
  const numbered = ctx.dialect === 'sqlite' && created.size > 0;
  let next = numbered ? await drawUserNumbers(ctx, created.size) : 0;
  const row = (u: UserFields) => [u.user_id, u.name, u.wallet_address, u.avatar, u.level, u.level_icon, u.is_bot];
  const found = users.filter((u) => !created.has(u.user_id));
  if (found.length > 0) await run(ctx, writeBack, [ctx.now, ctx.now, json(found.map(row))]);
  if (created.size > 0) {
    const fresh = users.filter((u) => created.has(u.user_id));
    const rows = fresh.map((u) => (numbered ? [...row(u), next++] : row(u)));
    await run(ctx, insert, [ctx.now, ctx.now, json(rows)]);
  }
  await run(ctx, statsRows, [jsonList(users.map((u) => u.user_id))]);
  const state = seen.of(ctx);
  for (const u of users) state.known.add(u.user_id);
  // On PostgreSQL a concurrent batch may create one of them first (this batch is then retried, and
  // that batch's likes may exist): only SQLite's single writer knows it created them.
  if (ctx.dialect === 'sqlite') for (const id of created) state.created.add(id);
}

export interface WalletRow {
  chain_id: number;
  address_norm: string;
  address: string;
  user_id: string;
}

const walletsAtOrOf = statement(
  (rows, list) => `SELECT w.chain_id, w.address_norm, w.address, w.user_id
    FROM ${rows({ chain_id: 'int', address_norm: 'text' })} AS r
    JOIN wallets w ON w.chain_id = r.chain_id AND w.address_norm = r.address_norm
    UNION
    SELECT w.chain_id, w.address_norm, w.address, w.user_id
    FROM ${list('id')} AS r JOIN wallets w ON w.user_id = r.id`,
);

/** The wallets at the given (chain, normalized address) keys, and every wallet of `userIds`. */
export const walletsAtOrOwnedBy = (
  ctx: BatchContext,
  keys: readonly (readonly [number, string])[],
  userIds: Iterable<string>,
): Promise<WalletRow[]> => run<WalletRow>(ctx, walletsAtOrOf, [json(keys), jsonList(userIds)]);

const deleteWalletRows = statement(
  (rows) => `DELETE FROM wallets WHERE (chain_id, address_norm) IN
    (SELECT r.chain_id, r.address_norm FROM ${rows({ chain_id: 'int', address_norm: 'text' })} AS r)`,
);
const insertWalletRows = statement(
  (rows) => `INSERT INTO wallets (chain_id, address_norm, address, user_id)
    SELECT r.chain_id, r.address_norm, r.address, r.user_id
    FROM ${rows({ chain_id: 'int', address_norm: 'text', address: 'text', user_id: 'text' })} AS r`,
);

/** Removes the wallets at `removed` (keys), then inserts `added`. */
export async function replaceWallets(
  ctx: BatchContext,
  removed: readonly WalletRow[],
  added: readonly WalletRow[],
): Promise<void> {
  if (removed.length > 0) {
    await run(ctx, deleteWalletRows, [json(removed.map((w) => [w.chain_id, w.address_norm]))]);
  }
  if (added.length > 0) {
    await run(ctx, insertWalletRows, [json(added.map((w) => [w.chain_id, w.address_norm, w.address, w.user_id]))]);
  }
}

/** The user_stats counters that runs of follow and like events move. */
export type SocialCounter = 'followers' | 'following' | 'likes_received' | 'likes_given';

const SOCIAL: readonly SocialCounter[] = ['followers', 'following', 'likes_received', 'likes_given'];

/** The summed deltas of a run: per user, one value for each of `columns` (0 where a map has none). */
export interface SocialDeltas {
  readonly columns: readonly SocialCounter[];
  readonly rows: readonly (readonly [string, ...number[]])[];
}

/** Per user, the deltas of each counter given (summed per user already); the counters not given stay. */
export function socialDeltas(sums: Partial<Record<SocialCounter, ReadonlyMap<string, number>>>): SocialDeltas {
  const given = SOCIAL.flatMap((c) => {
    const sum = sums[c];
    return sum === undefined ? [] : [[c, sum] as const];
  });
  // One row per user, filled column by column.
  const zeros = given.map(() => 0);
  const rows = new Map<string, [string, ...number[]]>();
  given.forEach(([, sum], column) => {
    for (const [id, delta] of sum) {
      let row = rows.get(id);
      if (row === undefined) {
        row = [id, ...zeros];
        rows.set(id, row);
      }
      row[column + 1] = delta;
    }
  });
  return { columns: given.map(([c]) => c), rows: [...rows.values()] };
}

/** One UPDATE per set of counters a run moves, built the first time it is needed. */
const bumpStatements = new Map<string, Statement>();
const bumpStatement = (columns: readonly SocialCounter[]): Statement => {
  const key = columns.join(',');
  let s = bumpStatements.get(key);
  if (s === undefined) {
    s = statement(
      (rows) => `UPDATE user_stats SET ${columns.map((c) => `${c} = user_stats.${c} + r.${c}`).join(', ')}
    FROM ${rows({ id: 'text', ...Object.fromEntries(columns.map((c) => [c, 'int' as const])) })} AS r
    WHERE user_stats.user_id = r.id`,
    );
    bumpStatements.set(key, s);
  }
  return s;
};

/** Adds each user's summed deltas in one statement (one row per user). */
export async function bumpUsersStats(ctx: BatchContext, deltas: SocialDeltas): Promise<void> {
  if (deltas.rows.length === 0) return;
  await run(ctx, bumpStatement(deltas.columns), [json(deltas.rows)]);
}

export type Pair = readonly [string, string];

/** How `existing` names a pair. */
export const pairKey = (a: string, b: string): string => `${a}\u0000${b}`;

/**
 * Set-based SQL for a table of pairs (two text columns, created_at, and a seq that follows the
 * order of insertion): follows, moment likes. `userSides` are the positions holding user ids: a
 * pair naming a user this batch created exists only if the batch wrote it, which it remembers, so
 * such pairs are not read. That holds because follows and likes are written only through `write`
 * (their events always apply in runs): an event writing them on its own would have to record its
 * writes here too.
 */
export function pairTable(table: string, [a, b]: readonly [string, string], userSides: readonly (0 | 1)[]) {
  const among = statement(
    (rows) => `SELECT ${a} AS a, ${b} AS b FROM ${table} WHERE (${a}, ${b}) IN
    (SELECT r.a, r.b FROM ${rows({ a: 'text', b: 'text' })} AS r)`,
  );
  const insert = statement(
    (rows) => `INSERT INTO ${table} (${a}, ${b}, created_at)
    SELECT r.a, r.b, ? FROM ${rows({ a: 'text', b: 'text' })} AS r ORDER BY r.ord`,
  );
  // A run that removes pairs reads them locked on PostgreSQL (SQLite has one writer): a concurrent
  // batch removing the same pair waits for this one, then finds it gone and counts nothing, as one
  // event at a time would. In key order, so two such batches lock rows in the same order.
  const amongLocked: Statement = { sqlite: among.sqlite, postgres: `${among.postgres} ORDER BY 1, 2 FOR UPDATE` };
  const remove = statement(
    (rows) => `DELETE FROM ${table} WHERE (${a}, ${b}) IN
    (SELECT r.a, r.b FROM ${rows({ a: 'text', b: 'text' })} AS r)`,
  );
  /** Per batch: the pairs it wrote, by pairKey, and whether they exist now. */
  const written = new PerBatch(() => new Map<string, boolean>());
  return {
    /** Which of `pairs` exist, by pairKey; `toRemove`: the caller removes some of them (they are locked). */
    existing: async (ctx: BatchContext, pairs: readonly Pair[], toRemove = false): Promise<Set<string>> => {
      const created = createdUsers(ctx);
      const mine = written.of(ctx);
      const found = new Set<string>();
      const unread = pairs.filter((p) => {
        if (!userSides.some((side) => created.has(p[side]))) return true;
        const key = pairKey(p[0], p[1]);
        if (mine.get(key) === true) found.add(key);
        return false;
      });
      if (unread.length > 0) {
        const read = toRemove ? amongLocked : among;
        for (const r of await run<{ a: string; b: string }>(ctx, read, [json(unread)])) found.add(pairKey(r.a, r.b));
      }
      return found;
    },
    /** Inserts the new pairs in order (their seq follows it), then removes the others. */
    write: async (ctx: BatchContext, added: readonly Pair[], removed: readonly Pair[]): Promise<void> => {
      if (added.length > 0) await run(ctx, insert, [ctx.now, json(added)]);
      if (removed.length > 0) await run(ctx, remove, [json(removed)]);
      const mine = written.of(ctx);
      for (const p of added) mine.set(pairKey(p[0], p[1]), true);
      for (const p of removed) mine.set(pairKey(p[0], p[1]), false);
    },
  };
}

export type Edge = readonly [follower: string, followed: string];

export const follows = pairTable('follows', ['follower_id', 'followed_id'], [0, 1]);
