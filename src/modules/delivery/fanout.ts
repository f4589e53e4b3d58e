// Turns users' messages and button presses into Updates for the bots that may receive them, in
// the event's own transaction; the wake-up keys are announced after commit.
import type { Kysely } from 'kysely';
import type { DB, PrivateMessagePolicy } from '../../db/types.js';
import { botsPrivacy, findBot, privateAllowed } from '../bots/index.js';
import { addTo, type BatchContext, type EventContext } from '../events/index.js';
import { roleIn } from '../groups/index.js';
import {
  botUser,
  type BotUser,
  chatUsers,
  findOutbox,
  keyboardOf,
  messageOf,
  type OutboxRow,
  messageView,
  type MessageView,
  type UserMessage,
  viewWith,
  type ViewUser,
} from '../messaging/index.js';
import { follows, isFollowing, pairKey, type Pair } from '../users/index.js';
import * as repo from './repo.js';
import { deliverable } from './rules.js';

export const UPDATES_KEY_PREFIX = 'updates:';
export const updatesKey = (botUserId: string): string => `${UPDATES_KEY_PREFIX}${botUserId}`;

/** What the delivery rules read: from the store one event at a time, from a run's reads in a batch. */
interface Lookups {
  bot: (userId: string) => Promise<{ bot_user_id: string; private_message_policy: PrivateMessagePolicy } | undefined>;
  follows: (followerId: string, followedId: string) => Promise<boolean>;
  /** The group's bots, by id, and whether each may listen to every group message. */
  botsInGroup: (groupId: string) => Promise<readonly { bot_user_id: string; permission: string | null }[]>;
}

const storeLookups = (tx: Kysely<DB>): Lookups => ({
  bot: (userId) => findBot(tx, userId),
  follows: (a, b) => isFollowing(tx, a, b),
  botsInGroup: (groupId) => repo.botsInGroup(tx, groupId),
});

async function recipients(look: Lookups, m: UserMessage): Promise<string[]> {
  const incoming = { chatType: m.chat_type, kind: m.kind, mentionUserIds: m.mention_user_ids };
  if (m.chat_type === 'private') {
    const bot = m.to_user_id === null ? undefined : await look.bot(m.to_user_id);
    if (bot === undefined) return [];
    const allowed = await privateAllowed(bot.private_message_policy, bot.bot_user_id, m.from_user_id, look.follows);
    return allowed ? [bot.bot_user_id] : [];
  }
  const bots = m.group_id === null ? [] : await look.botsInGroup(m.group_id);
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

type UpdateBody =
  { message: MessageView } | { callback_query: { from: BotUser; message: MessageView } & Record<string, unknown> };

function payloadOf(id: number, botUserId: string, body: UpdateBody): string {
  const flat =
    'message' in body
      ? flatOf(botUserId, body.message, body.message.from)
      : flatOf(botUserId, body.callback_query.message, body.callback_query.from);
  return JSON.stringify({ update: { id, update_id: id, ...body }, flat });
}

async function store(ctx: EventContext, botUserId: string, body: UpdateBody): Promise<void> {
  const id = await repo.nextUpdateId(ctx.tx, botUserId);
  const payload = payloadOf(id, botUserId, body);
  await repo.insertUpdate(ctx.tx, { bot_user_id: botUserId, update_id: id, payload, created_at: ctx.now });
  ctx.touch(updatesKey(botUserId));
}

/**
 * A user's message, just recorded: an Update for each bot the delivery rules let receive it.
 * `number` reads the message's number, needed only when some bot receives it.
 */
export async function fanOutMessage(ctx: EventContext, m: UserMessage, number: () => Promise<number>): Promise<void> {
  const bots = await recipients(storeLookups(ctx.tx), m);
  if (bots.length === 0) return;
  const message = await messageView(ctx.tx, messageOf({ user: m, number: await number() }));
  for (const bot of bots) await store(ctx, bot, { message });
}

/** A run's messages, just recorded, each with the number the store gave it. */
export interface RecordedMessage {
  message: UserMessage;
  number: number;
}

/** What a run's messages name, read by the caller: the users (sender, mentions, addressee) and the groups' titles. */
export interface Named {
  users: ReadonlyMap<string, ViewUser>;
  groupTitles: ReadonlyMap<string, string>;
}

/** The store's answers to the rules' questions about `messages`, read in one statement each. */
async function runLookups(ctx: BatchContext, messages: readonly UserMessage[]): Promise<Lookups> {
  const addressees = messages.flatMap((m) => (m.to_user_id === null ? [] : [m.to_user_id]));
  const bots = new Map((await botsPrivacy(ctx, addressees)).map((b) => [b.bot_user_id, b]));
  const pairs = messages.flatMap((m): Pair[] => {
    const bot = m.to_user_id === null ? undefined : bots.get(m.to_user_id);
    if (bot === undefined || bot.private_message_policy === 'everyone') return [];
    return [
      [bot.bot_user_id, m.from_user_id],
      [m.from_user_id, bot.bot_user_id],
    ];
  });
  const followed = pairs.length === 0 ? new Set<string>() : await follows.existing(ctx, pairs);
  const groups = messages.flatMap((m) => (m.group_id === null ? [] : [m.group_id]));
  const inGroup = new Map<string, repo.GroupBot[]>();
  for (const b of groups.length === 0 ? [] : await repo.botsInGroups(ctx, groups)) {
    const list = inGroup.get(b.group_id);
    if (list === undefined) inGroup.set(b.group_id, [b]);
    else list.push(b);
  }
  return {
    bot: (userId) => Promise.resolve(bots.get(userId)),
    follows: (a, b) => Promise.resolve(followed.has(pairKey(a, b))),
    botsInGroup: (groupId) => Promise.resolve(inGroup.get(groupId) ?? []),
  };
}

/**
 * A run's Updates go to the store in slices of at most this many payload characters (the rows
 * travel as one JSON parameter, where escaping at most doubles a JSON text: at most 8 Mi
 * characters) and this many Updates. Every payload is a copy of its message, mentioned users and
 * all, so a run's whole set can outgrow the longest string V8 makes (~512 MiB) and fail on every
 * retry; a slice's payloads are the only ones held at once (a payload beyond the bound goes alone).
 */
const CHUNK_PAYLOAD_CHARS = 4 * 1024 * 1024;
const CHUNK_UPDATES = 5000;

/**
 * fanOutMessage for a run's messages, with exactly its Updates, ids, payloads and touched keys: the
 * rules' reads done once, each bot's ids taken in one statement (its row lock held until commit)
 * and given out in the messages' order, the Updates inserted in that order, a bounded slice per
 * statement (CHUNK_PAYLOAD_CHARS), all in the run's transaction.
 */
export async function fanOutMessages(
  ctx: BatchContext,
  recorded: readonly RecordedMessage[],
  named: Named,
): Promise<void> {
  const look = await runLookups(
    ctx,
    recorded.map((r) => r.message),
  );
  const deliveries: { bot: string; message: MessageView }[] = [];
  for (const { message: m, number } of recorded) {
    const bots = await recipients(look, m);
    if (bots.length === 0) continue;
    const title = m.group_id === null ? undefined : named.groupTitles.get(m.group_id);
    const message = viewWith(messageOf({ user: m, number }), named.users, title);
    for (const bot of bots) deliveries.push({ bot, message });
  }
  if (deliveries.length === 0) return;
  const counts = new Map<string, number>();
  for (const { bot } of deliveries) addTo(counts, bot, 1);
  const last = await repo.takeUpdateIds(ctx, counts);
  /** Each bot's last id given out so far: the one before its first new id. */
  const given = new Map(
    [...counts].map(([bot, n]) => {
      const top = last.get(bot);
      if (top === undefined) throw new Error(`bot ${bot} has no row to take Update ids from`);
      return [bot, top - n];
    }),
  );
  let chunk: (readonly [string, number, string])[] = [];
  let chars = 0;
  for (const { bot, message } of deliveries) {
    const id = (given.get(bot) ?? 0) + 1;
    given.set(bot, id);
    const payload = payloadOf(id, bot, { message });
    if (chunk.length > 0 && (chunk.length >= CHUNK_UPDATES || chars + payload.length > CHUNK_PAYLOAD_CHARS)) {
      await repo.insertUpdates(ctx, chunk);
      chunk = [];
      chars = 0;
    }
    chunk.push([bot, id, payload]);
    chars += payload.length;
  }
  await repo.insertUpdates(ctx, chunk);
  for (const bot of counts.keys()) ctx.touch(updatesKey(bot));
}

/** Whether a user can see a bot's message: the private chat's user, or a member of the group. */
async function seesMessage(tx: Kysely<DB>, sent: OutboxRow, userId: string): Promise<boolean> {
  if (sent.chat_type === 'private') return sent.to_user_id === userId;
  return sent.group_id !== null && (await roleIn(tx, sent.group_id, userId)) !== undefined;
}

/** A press on an inline button of a bot's message: a callback_query Update for that bot. */
export async function fanOutCallback(
  ctx: EventContext,
  c: { callback_id: string; message_id: string; user_id: string; data: string },
): Promise<string | undefined> {
  const sent = await findOutbox(ctx.tx, c.message_id);
  if (sent === undefined) return 'unknown_message';
  if ((await findBot(ctx.tx, sent.from_user_id)) === undefined) return 'not_a_bot_message';
  // As Telegram's servers do: a press carries the data of a button the message shows now, so a bot
  // can trust callback data as its own.
  const keyboard = keyboardOf(sent.reply_markup);
  if (keyboard === null) return 'no_keyboard';
  if (!keyboard.inline_keyboard.some((row) => row.some((b) => b.callback_data === c.data))) return 'unknown_button';
  if ((await repo.findCallbackQuery(ctx.tx, c.callback_id)) !== undefined) return 'duplicate_callback';
  const [clicker] = await chatUsers(ctx.tx, [c.user_id]);
  if (clicker === undefined) return 'unknown_user';
  if (!(await seesMessage(ctx.tx, sent, c.user_id))) return 'not_in_chat';
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
