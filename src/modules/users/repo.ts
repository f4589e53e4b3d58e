import { CompiledQuery, type Kysely } from 'kysely';
import { bump, lockIfRoom, lockRow, type Deltas } from '../../db/counters.js';
import { deleteRow, insertNew } from '../../db/rows.js';
import type { DB, UserRow } from '../../db/types.js';
import { INTEGER_COLUMN_MAX } from '../../lib/schemas.js';

export type UserFields = Omit<UserRow, 'created_at' | 'updated_at'>;

export const findUser = (tx: Kysely<DB>, userId: string): Promise<UserRow | undefined> =>
  tx.selectFrom('users').selectAll().where('user_id', '=', userId).executeTakeFirst();

/**
 * findUser for a write that merges into the row: the row is locked first (lockRow) until the
 * transaction ends, so a concurrent upsert of the same user waits, then reads what this one wrote,
 * instead of writing back values read before it.
 */
export async function findUserLocked(tx: Kysely<DB>, userId: string): Promise<UserRow | undefined> {
  await lockRow(tx, 'users', 'user_id', userId);
  return findUser(tx, userId);
}

export async function usersExist(tx: Kysely<DB>, ids: readonly string[]): Promise<boolean> {
  const unique = [...new Set(ids)];
  const rows = await tx.selectFrom('users').select('user_id').where('user_id', 'in', unique).execute();
  return rows.length === unique.length;
}

/**
 * Inserts the user, or updates the one there. `isNew`: the caller read no such user, locked
 * (findUserLocked), and merged into nothing; the insert then has no ON CONFLICT, so a user a
 * concurrent transaction created meanwhile fails it with a unique violation (23505), and the
 * transaction is retried (db/retry.ts) and finds that user, rather than overwriting its fields.
 */
export async function upsertUser(tx: Kysely<DB>, u: UserFields, now: number, isNew = false): Promise<void> {
  const insert = tx.insertInto('users').values({ ...u, created_at: now, updated_at: now });
  await (
    isNew
      ? insert
      : insert.onConflict((oc) =>
          oc.column('user_id').doUpdateSet({
            name: u.name,
            wallet_address: u.wallet_address,
            avatar: u.avatar,
            level: u.level,
            level_icon: u.level_icon,
            updated_at: now,
          }),
        )
  ).execute();
  await tx
    .insertInto('user_stats')
    .values({ user_id: u.user_id })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
}

export const walletOwner = async (tx: Kysely<DB>, chainId: number, address: string): Promise<string | undefined> =>
  (
    await tx
      .selectFrom('wallets')
      .select('user_id')
      .where('chain_id', '=', chainId)
      .where('address_norm', '=', address.toLowerCase())
      .executeTakeFirst()
  )?.user_id;

/** Makes `address` the user's wallet on `chainId`, replacing any earlier one on that chain. */
export async function setWallet(tx: Kysely<DB>, userId: string, chainId: number, address: string): Promise<void> {
  await tx.deleteFrom('wallets').where('user_id', '=', userId).where('chain_id', '=', chainId).execute();
  await tx
    .insertInto('wallets')
    .values({ chain_id: chainId, address_norm: address.toLowerCase(), address, user_id: userId })
    .execute();
}

/**
 * Raises a level in SQL (level = level + n), so concurrent raises all count; false, and nothing
 * changed, when the raised level would not fit the column.
 */
export async function raiseLevel(tx: Kysely<DB>, userId: string, by: number, now: number): Promise<boolean> {
  const r = await tx
    .updateTable('users')
    .set((eb) => ({ level: eb('level', '+', by), updated_at: now }))
    .where('user_id', '=', userId)
    .where('level', '<=', INTEGER_COLUMN_MAX - by)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export const bumpUserStats = (tx: Kysely<DB>, userId: string, deltas: Deltas<'user_stats'>) =>
  bump(tx, 'user_stats', 'user_id', userId, deltas);

/** Locks the user's counters if `deltas` keep them below 2^53 (`lockIfRoom`); false: they would not. */
export const lockUserStatsIfRoom = (tx: Kysely<DB>, userId: string, deltas: Deltas<'user_stats'>) =>
  lockIfRoom(tx, 'user_stats', 'user_id', userId, deltas);

/** Inserts the follow edge; false when it already existed. */
export const addFollow = (tx: Kysely<DB>, followerId: string, followedId: string, now: number) =>
  insertNew(tx, 'follows', { follower_id: followerId, followed_id: followedId, created_at: now }, [
    'follower_id',
    'followed_id',
  ]);

/** Removes the follow edge; false when there was none. */
export const removeFollow = (tx: Kysely<DB>, followerId: string, followedId: string) =>
  deleteRow(tx, 'follows', { follower_id: followerId, followed_id: followedId });

export const isFollowing = async (tx: Kysely<DB>, followerId: string, followedId: string): Promise<boolean> =>
  (await tx
    .selectFrom('follows')
    .select('seq')
    .where('follower_id', '=', followerId)
    .where('followed_id', '=', followedId)
    .executeTakeFirst()) !== undefined;

/**
 * Draws `count` numbers from a counter of migration 0005's `telegram_counters` (SQLite only:
 * PostgreSQL draws from its sequences) in one statement, within the caller's transaction; answers
 * the last, so the numbers drawn are `last - count + 1` to `last`. `user` numbers users (the
 * trigger, and batches of new users), `message` the messages of every chat.
 */
export async function drawTelegramNumbers(tx: Kysely<DB>, counter: 'user' | 'message', count: number): Promise<number> {
  const { rows } = await tx.executeQuery<{ last: number }>(
    CompiledQuery.raw(`UPDATE telegram_counters SET last = last + ? WHERE name = ? RETURNING last`, [count, counter]),
  );
  const last = rows[0]?.last;
  if (last === undefined) throw new Error(`telegram_counters has no ${counter} counter`);
  return last;
}
