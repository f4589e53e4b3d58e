import type { Kysely } from 'kysely';
import { lockRow } from '../../db/counters.js';
import { countOf, insertNew, insertRow } from '../../db/rows.js';
import type { ApplicationStatus, DB, Permission, PrivateMessagePolicy } from '../../db/types.js';
import { type BatchContext, jsonList, run, statement } from '../events/index.js';
import { isFollowing } from '../users/index.js';

export const lockBot = (tx: Kysely<DB>, botUserId: string) => lockRow(tx, 'bots', 'bot_user_id', botUserId);

export const findBot = (tx: Kysely<DB>, botUserId: string) =>
  tx.selectFrom('bots').selectAll().where('bot_user_id', '=', botUserId).executeTakeFirst();

/** The bot whose credentials are the app's; undefined for an application that is not a bot. */
export const botIdOfApp = async (tx: Kysely<DB>, appId: string): Promise<string | undefined> =>
  (await tx.selectFrom('bots').select('bot_user_id').where('app_id', '=', appId).executeTakeFirst())?.bot_user_id;

const privacyOf = statement(
  (_, list) => `SELECT bot_user_id, private_message_policy FROM bots
    WHERE bot_user_id IN (SELECT r.id FROM ${list('id')} AS r)`,
);

export interface BotPrivacy {
  bot_user_id: string;
  private_message_policy: PrivateMessagePolicy;
}

/** Which of `userIds` are bots, each with its private-message setting (findBot for many at once). */
export async function botsPrivacy(ctx: BatchContext, userIds: Iterable<string>): Promise<BotPrivacy[]> {
  const distinct = new Set(userIds);
  return distinct.size === 0 ? [] : run<BotPrivacy>(ctx, privacyOf, [jsonList(distinct)]);
}

export const countBotsOf = (tx: Kysely<DB>, ownerUserId: string) =>
  countOf(tx.selectFrom('bots').where('owner_user_id', '=', ownerUserId));

export const insertBot = (
  tx: Kysely<DB>,
  bot: { bot_user_id: string; app_id: string; owner_user_id: string; evm_address: string; description: string },
  now: number,
) =>
  insertRow(tx, 'bots', {
    ...bot,
    private_message_policy: 'everyone',
    group_invite_policy: 'everyone',
    payload_format: 'update',
    webhook_url: null,
    webhook_key_enc: null,
    last_update_id: 0,
    created_at: now,
  });

/** Whether `userId` may join a group invited by `inviterId`: only bots restrict who invites them. */
export async function mayInviteBot(tx: Kysely<DB>, userId: string, inviterId: string | undefined): Promise<boolean> {
  const bot = await tx
    .selectFrom('bots')
    .select('group_invite_policy')
    .where('bot_user_id', '=', userId)
    .executeTakeFirst();
  if (bot === undefined || bot.group_invite_policy === 'everyone') return true;
  return inviterId !== undefined && (await isFollowing(tx, userId, inviterId));
}

export const permissionsOf = async (tx: Kysely<DB>, botUserId: string): Promise<Permission[]> =>
  (
    await tx
      .selectFrom('bot_permissions')
      .select('permission')
      .where('bot_user_id', '=', botUserId)
      // No byteOrder: the three names differ in their first letter, so every collation agrees.
      .orderBy('permission')
      .execute()
  ).map((r) => r.permission);

export async function grantPermission(tx: Kysely<DB>, botUserId: string, permission: Permission, now: number) {
  await insertNew(tx, 'bot_permissions', { bot_user_id: botUserId, permission, granted_at: now }, [
    'bot_user_id',
    'permission',
  ]);
}

const applicationColumns = ['id', 'bot_user_id', 'permission', 'status', 'note', 'created_at', 'decided_at'] as const;

export const findApplication = (tx: Kysely<DB>, id: string) =>
  tx.selectFrom('permission_applications').select(applicationColumns).where('id', '=', id).executeTakeFirst();

export const pendingApplication = (tx: Kysely<DB>, botUserId: string, permission: Permission) =>
  tx
    .selectFrom('permission_applications')
    .select('id')
    .where('bot_user_id', '=', botUserId)
    .where('permission', '=', permission)
    .where('status', '=', 'pending')
    .executeTakeFirst();

export const insertApplication = (
  tx: Kysely<DB>,
  a: { id: string; bot_user_id: string; permission: Permission },
  now: number,
) =>
  insertRow(tx, 'permission_applications', { ...a, status: 'pending', note: null, created_at: now, decided_at: null });

export async function decideApplication(
  tx: Kysely<DB>,
  id: string,
  status: Exclude<ApplicationStatus, 'pending'>,
  note: string | null,
  now: number,
): Promise<boolean> {
  const r = await tx
    .updateTable('permission_applications')
    .set({ status, note, decided_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export function listApplications(tx: Kysely<DB>, filter: { status?: ApplicationStatus; botUserId?: string }) {
  let q = tx.selectFrom('permission_applications').select(applicationColumns).orderBy('created_at').orderBy('id');
  if (filter.status !== undefined) q = q.where('status', '=', filter.status);
  if (filter.botUserId !== undefined) q = q.where('bot_user_id', '=', filter.botUserId);
  return q.limit(1000).execute();
}
