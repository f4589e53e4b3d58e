import { sql, type Kysely } from 'kysely';
import type { DB, GroupInvitePolicy, PrivateMessagePolicy } from '../../db/types.js';

export const ownedApp = (tx: Kysely<DB>, ownerUserId: string, appId: string) =>
  tx
    .selectFrom('apps')
    .selectAll()
    .where('app_id', '=', appId)
    .where('owner_user_id', '=', ownerUserId)
    .executeTakeFirst();

/** A developer's bot with its profile (the bot's user row) and its app. */
export const ownedBot = (tx: Kysely<DB>, ownerUserId: string, botUserId: string) =>
  tx
    .selectFrom('bots as b')
    .innerJoin('users as u', 'u.user_id', 'b.bot_user_id')
    .innerJoin('apps as a', 'a.app_id', 'b.app_id')
    .select([
      'b.bot_user_id',
      'b.app_id',
      'b.description',
      'b.evm_address',
      'b.private_message_policy',
      'b.group_invite_policy',
      'b.webhook_url',
      'b.payload_format',
      'b.last_error_at',
      'b.last_error_message',
      'b.created_at',
      'u.name',
      'u.avatar',
      'u.level',
      'u.telegram_id',
      'a.api_key_enc',
    ])
    .where('b.bot_user_id', '=', botUserId)
    .where('b.owner_user_id', '=', ownerUserId)
    .executeTakeFirst();

export async function setProfile(
  tx: Kysely<DB>,
  bot: { bot_user_id: string; app_id: string },
  p: { name: string; avatar: string; description: string },
  now: number,
): Promise<void> {
  await tx
    .updateTable('users')
    .set({ name: p.name, avatar: p.avatar, updated_at: now })
    .where('user_id', '=', bot.bot_user_id)
    .execute();
  await tx.updateTable('apps').set({ name: p.name, updated_at: now }).where('app_id', '=', bot.app_id).execute();
  await tx.updateTable('bots').set({ description: p.description }).where('bot_user_id', '=', bot.bot_user_id).execute();
}

export async function setPrivacy(
  tx: Kysely<DB>,
  botUserId: string,
  p: { private_message_policy: PrivateMessagePolicy; group_invite_policy: GroupInvitePolicy },
): Promise<void> {
  await tx.updateTable('bots').set(p).where('bot_user_id', '=', botUserId).execute();
}

export const recentDeliveries = (tx: Kysely<DB>, botUserId: string, limit: number) =>
  tx
    .selectFrom('webhook_deliveries as d')
    .select([
      'd.seq',
      'd.update_id',
      'd.url',
      'd.attempt',
      'd.status_code',
      'd.error',
      'd.duration_ms',
      'd.created_at',
      // Whether a later attempt of the same Update got through.
      sql<number>`case when exists (select 1 from webhook_deliveries l where l.bot_user_id = d.bot_user_id
        and l.update_id = d.update_id and l.seq > d.seq and l.error is null) then 1 else 0 end`.as('superseded'),
    ])
    .where('d.bot_user_id', '=', botUserId)
    .orderBy('d.seq', 'desc')
    .limit(limit)
    .execute();

/** When a webhook delivery of the bot last got through (within the kept delivery log). */
export const lastSuccessAt = async (tx: Kysely<DB>, botUserId: string): Promise<number | null> =>
  (
    await tx
      .selectFrom('webhook_deliveries')
      .select('created_at')
      .where('bot_user_id', '=', botUserId)
      .where('error', 'is', null)
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst()
  )?.created_at ?? null;
