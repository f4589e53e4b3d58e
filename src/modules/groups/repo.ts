import type { Kysely } from 'kysely';
import { bump, lockIfRoom, lockRow, type Deltas } from '../../db/counters.js';
import { deleteRow } from '../../db/rows.js';
import type { DB, GroupRole, GroupRow } from '../../db/types.js';

/** Share URLs are matched after trimming blanks and trailing slashes. */
export const normalizeInviteUrl = (url: string): string => url.trim().replace(/\/+$/, '');

/** Locks the group's row for the rest of the transaction (member limit checks). */
export const lockGroup = (tx: Kysely<DB>, groupId: string) => lockRow(tx, 'groups', 'group_id', groupId);

export const findGroup = (tx: Kysely<DB>, groupId: string): Promise<GroupRow | undefined> =>
  tx.selectFrom('groups').selectAll().where('group_id', '=', groupId).executeTakeFirst();

export const groupIdByInviteUrl = async (tx: Kysely<DB>, url: string): Promise<string | undefined> =>
  (
    await tx
      .selectFrom('groups')
      .select('group_id')
      .where('invite_url_norm', '=', normalizeInviteUrl(url))
      .executeTakeFirst()
  )?.group_id;

/**
 * findGroup for a write that merges into the row (group.upserted): the row is locked first
 * (lockRow) until the transaction ends, so a concurrent upsert of the group waits, then reads what
 * this one wrote, instead of writing back values read before it.
 */
export async function findGroupLocked(tx: Kysely<DB>, groupId: string): Promise<GroupRow | undefined> {
  await lockRow(tx, 'groups', 'group_id', groupId);
  return findGroup(tx, groupId);
}

export interface GroupFields {
  group_id: string;
  name: string;
  invite_url: string;
  pic: string;
  is_charge: 0 | 1;
  subchannel_number: number;
  maximum: number;
  created_at: string;
  owner_id: string | null;
}

/**
 * Inserts the group, or updates the one there (its counters stay). `isNew`: the caller read no such
 * group, locked (findGroupForUpdate); the insert then has no ON CONFLICT, so a group a concurrent
 * transaction created meanwhile fails it (23505) and the transaction is retried (db/retry.ts).
 */
export async function upsertGroup(tx: Kysely<DB>, g: GroupFields, isNew = false): Promise<void> {
  const { group_id: _id, ...changes } = g;
  const row = { ...g, invite_url_norm: normalizeInviteUrl(g.invite_url) };
  const insert = tx.insertInto('groups').values(row);
  await (
    isNew
      ? insert
      : insert.onConflict((oc) =>
          oc.column('group_id').doUpdateSet({ ...changes, invite_url_norm: row.invite_url_norm }),
        )
  ).execute();
}

/** The user's role in the group; undefined when not a member. */
export const roleIn = async (tx: Kysely<DB>, groupId: string, userId: string): Promise<GroupRole | undefined> =>
  (
    await tx
      .selectFrom('group_members')
      .select('role')
      .where('group_id', '=', groupId)
      .where('user_id', '=', userId)
      .executeTakeFirst()
  )?.role;

/** Adds the member, marked a bot as its user row says (the fan-out finds a group's bots by it). */
export const addMember = async (
  tx: Kysely<DB>,
  m: { group_id: string; user_id: string; role: GroupRole; invited_by: string | null },
  now: number,
): Promise<void> => {
  await tx
    .insertInto('group_members')
    .values((eb) => ({
      ...m,
      joined_at: now,
      is_bot: eb.selectFrom('users').select('users.is_bot').where('users.user_id', '=', m.user_id),
    }))
    .execute();
};

export async function setRole(tx: Kysely<DB>, groupId: string, userId: string, role: GroupRole): Promise<void> {
  await tx
    .updateTable('group_members')
    .set({ role })
    .where('group_id', '=', groupId)
    .where('user_id', '=', userId)
    .execute();
}

/** Removes the membership; false when there was none. */
export const removeMember = (tx: Kysely<DB>, groupId: string, userId: string) =>
  deleteRow(tx, 'group_members', { group_id: groupId, user_id: userId });

export const bumpGroup = (tx: Kysely<DB>, groupId: string, deltas: Deltas<'groups'>) =>
  bump(tx, 'groups', 'group_id', groupId, deltas);

/** Locks the group's counters if `deltas` keep them below 2^53 (`lockIfRoom`); false: they would not. */
export const lockGroupIfRoom = (tx: Kysely<DB>, groupId: string, deltas: Deltas<'groups'>) =>
  lockIfRoom(tx, 'groups', 'group_id', groupId, deltas);
