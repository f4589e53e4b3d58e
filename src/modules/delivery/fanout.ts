// Turns users' messages and button presses into Updates for the bots that may receive them, in
// the event's own transaction; the wake-up keys are announced after commit.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.js';
import { findBot, privateAllowed } from '../bots/index.js';
import type { EventContext } from '../events/index.js';
import {
  botUser,
  type BotUser,
  chatUsers,
  findOutbox,
  messageOf,
  messageView,
  type MessageView,
  type UserMessage,
} from '../messaging/index.js';
import { isFollowing } from '../users/index.js';
import * as repo from './repo.js';
import { deliverable } from './rules.js';

export const UPDATES_KEY_PREFIX = 'updates:';
export const updatesKey = (botUserId: string): string => `${UPDATES_KEY_PREFIX}${botUserId}`;

async function recipients(tx: Kysely<DB>, m: UserMessage): Promise<string[]> {
  const incoming = { chatType: m.chat_type, kind: m.kind, mentionUserIds: m.mention_user_ids };
  if (m.chat_type === 'private') {
    const bot = m.to_user_id === null ? undefined : await findBot(tx, m.to_user_id);
    if (bot === undefined) return [];
    const follows = (a: string, b: string) => isFollowing(tx, a, b);
    return (await privateAllowed(bot.private_message_policy, bot.bot_user_id, m.from_user_id, follows))
      ? [bot.bot_user_id]
      : [];
  }
  const bots = m.group_id === null ? [] : await repo.botsInGroup(tx, m.group_id);
  return bots
    .filter((b) => b.bot_user_id !== m.from_user_id)
    .filter((b) => deliverable(incoming, b.bot_user_id, b.permission !== null))
    .map((b) => b.bot_user_id);
}

/** The older callback format's fields, kept beside the Update for webhook receivers that want them. */
export interface FlatFields {
  from_user_id: string;
  to_user_id: string;
  language: string;
  group_id: string;
  mention_users: string;
  message: string;
  message_raw: string;
}

const flatOf = (botUserId: string, m: MessageView, from: BotUser): FlatFields => ({
  from_user_id: from.user_id,
  to_user_id: botUserId,
  // The application does not tell the sender's language.
  language: '',
  group_id: m.chat.type === 'group' ? m.chat.id : '',
  mention_users: m.mention_users.map((u) => u.user_id).join(','),
  message: m.text,
  message_raw: m.text_raw,
});

async function store(
  ctx: EventContext,
  botUserId: string,
  body:
    { message: MessageView } | { callback_query: { from: BotUser; message: MessageView } & Record<string, unknown> },
): Promise<void> {
  const id = await repo.nextUpdateId(ctx.tx, botUserId);
  const flat =
    'message' in body
      ? flatOf(botUserId, body.message, body.message.from)
      : flatOf(botUserId, body.callback_query.message, body.callback_query.from);
  const payload = JSON.stringify({ update: { id, update_id: id, ...body }, flat });
  await repo.insertUpdate(ctx.tx, { bot_user_id: botUserId, update_id: id, payload, created_at: ctx.now });
  ctx.touch(updatesKey(botUserId));
}

/**
 * A user's message, just recorded: an Update for each bot the delivery rules let receive it.
 * `number` reads the message's number, needed only when some bot receives it.
 */
export async function fanOutMessage(ctx: EventContext, m: UserMessage, number: () => Promise<number>): Promise<void> {
  const bots = await recipients(ctx.tx, m);
  if (bots.length === 0) return;
  const message = await messageView(ctx.tx, messageOf({ user: m, number: await number() }));
  for (const bot of bots) await store(ctx, bot, { message });
}

/** A press on an inline button of a bot's message: a callback_query Update for that bot. */
export async function fanOutCallback(
  ctx: EventContext,
  c: { callback_id: string; message_id: string; user_id: string; data: string },
): Promise<string | undefined> {
  const sent = await findOutbox(ctx.tx, c.message_id);
  if (sent === undefined) return 'unknown_message';
  if ((await findBot(ctx.tx, sent.from_user_id)) === undefined) return 'not_a_bot_message';
  if ((await repo.findCallbackQuery(ctx.tx, c.callback_id)) !== undefined) return 'duplicate_callback';
  const [clicker] = await chatUsers(ctx.tx, [c.user_id]);
  if (clicker === undefined) return 'unknown_user';
  await repo.insertCallbackQuery(ctx.tx, { ...c, bot_user_id: sent.from_user_id, created_at: ctx.now });
  const callback_query = {
    id: c.callback_id,
    from: botUser(clicker),
    message: await messageView(ctx.tx, messageOf({ bot: sent })),
    data: c.data,
  };
  await store(ctx, sent.from_user_id, { callback_query });
  return undefined;
}
