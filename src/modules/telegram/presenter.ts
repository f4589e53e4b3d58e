// The one place that shows the platform's objects in Telegram's shapes (telegram-api.md "Objects"):
// User, Chat, Message, CallbackQuery, Update. The second presenter of the bot core: it shows the
// core's Message (messaging's messageOf, from a sent or edited message or a stored Update) as the
// native surface does as its own; the numbers and names they need are read in one batch per kind
// (a Directory), never the objects again.
import type { Kysely } from 'kysely';
import type { Services } from '../../services.js';
import type { DB } from '../../db/types.js';
import { type InlineKeyboard, type Message, messageOf } from '../messaging/index.js';
import type { UpdateObject } from '../delivery/index.js';
import { textAndEntities, type MessageEntity } from './entities.js';
import * as repo from './repo.js';

export interface TgUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  username?: string;
}

export type TgChat =
  { id: number; type: 'private'; first_name: string } | { id: number; type: 'supergroup'; title: string };

interface TgButton {
  text: string;
  url?: string;
  callback_data?: string;
  login_url?: { url: string };
}

export interface TgMessage {
  message_id: number;
  from: TgUser;
  chat: TgChat;
  date: number;
  text: string;
  entities?: MessageEntity[];
  reply_markup?: { inline_keyboard: TgButton[][] };
  edit_date?: number;
}

export interface TgCallbackQuery {
  id: string;
  from: TgUser;
  message: TgMessage;
  chat_instance: string;
  data: string;
}

export type TgUpdate =
  { update_id: number; message: TgMessage } | { update_id: number; callback_query: TgCallbackQuery };

const seconds = (ms: number): number => Math.floor(ms / 1000);

/** A bot's username: libraries match `/command@username` with it. */
export const botUsername = (telegramId: number): string => `bot${telegramId}`;

type Users = Awaited<ReturnType<typeof repo.usersByIds>>;
type Groups = Awaited<ReturnType<typeof repo.groupsByIds>>;

/** The numbers and names of the users, groups and messages one answer shows. */
export class Directory {
  private constructor(
    private readonly users: Map<string, Users[number]>,
    private readonly groups: Map<string, Groups[number]>,
    private readonly messages: Map<string, number>,
  ) {}

  static async load(
    tx: Kysely<DB>,
    ids: { users?: readonly string[]; groups?: readonly string[]; messages?: readonly string[] },
  ): Promise<Directory> {
    const [users, groups, messages] = await Promise.all([
      repo.usersByIds(tx, ids.users ?? []),
      repo.groupsByIds(tx, ids.groups ?? []),
      repo.messageNumbers(tx, ids.messages ?? []),
    ]);
    return new Directory(
      new Map(users.map((u) => [u.user_id, u])),
      new Map(groups.map((g) => [g.group_id, g])),
      messages,
    );
  }

  /** For showing one message (committed): its sender and chat read by statements compiled once. */
  static async forMessage(r: repo.TelegramReads, tx: Kysely<DB>, m: Message): Promise<Directory> {
    const [users, group, messages] = await Promise.all([
      r.twoUsers.all([m.fromUserId, m.chat.type === 'private' ? m.chat.id : m.fromUserId]),
      m.chat.type === 'group' ? r.group.first([m.chat.id]) : undefined,
      repo.messageNumbers(tx, m.number === undefined ? [m.messageId] : []),
    ]);
    return new Directory(
      new Map(users.map((u) => [u.user_id, u])),
      new Map(group === undefined ? [] : [[group.group_id, group]]),
      messages,
    );
  }

  /** For showing `messages` (and `moreUsers`); a message without its number is numbered from here. */
  static forMessages(tx: Kysely<DB>, messages: readonly Message[], moreUsers: readonly string[] = []) {
    return Directory.load(tx, {
      users: [
        ...moreUsers,
        ...messages.flatMap((m) => [m.fromUserId, ...(m.chat.type === 'private' ? [m.chat.id] : [])]),
      ],
      groups: messages.flatMap((m) => (m.chat.type === 'group' ? [m.chat.id] : [])),
      messages: messages.filter((m) => m.number === undefined).map((m) => m.messageId),
    });
  }

  user(userId: string): TgUser {
    const u = this.users.get(userId);
    // A deleted user keeps no number; 0 is what Telegram shows for an unknown sender.
    if (u === undefined) return { id: 0, is_bot: false, first_name: '' };
    return u.is_bot === 1
      ? { id: u.telegram_id, is_bot: true, first_name: u.name, username: botUsername(u.telegram_id) }
      : { id: u.telegram_id, is_bot: false, first_name: u.name };
  }

  chat(chat: Message['chat']): TgChat {
    if (chat.type === 'private') {
      const u = this.user(chat.id);
      return { id: u.id, type: 'private', first_name: u.first_name };
    }
    const g = this.groups.get(chat.id);
    return { id: g?.telegram_id ?? 0, type: 'supergroup', title: g?.name ?? '' };
  }

  message(m: Message): TgMessage {
    const { text, entities } = textAndEntities(m.content, m.rich);
    const keyboard = m.replyMarkup === null ? undefined : telegramKeyboard(m.replyMarkup);
    return {
      message_id: m.number ?? this.messages.get(m.messageId) ?? 0,
      from: this.user(m.fromUserId),
      chat: this.chat(m.chat),
      date: seconds(m.sentAt),
      text,
      ...(entities.length > 0 ? { entities } : {}),
      ...(keyboard !== undefined ? { reply_markup: keyboard } : {}),
      ...(m.editedAt !== null ? { edit_date: seconds(m.editedAt) } : {}),
    };
  }
}

function telegramButton(b: InlineKeyboard['inline_keyboard'][number][number]): TgButton {
  const login = typeof b.login_url === 'object' ? b.login_url.url : b.login_url;
  return {
    text: b.text ?? b.sub_text ?? '',
    ...(b.url !== undefined ? { url: b.url } : {}),
    ...(b.callback_data !== undefined ? { callback_data: b.callback_data } : {}),
    ...(login !== undefined ? { login_url: { url: login } } : {}),
  };
}

const telegramKeyboard = (k: InlineKeyboard) =>
  k.inline_keyboard.length === 0
    ? undefined
    : { inline_keyboard: k.inline_keyboard.map((row) => row.map(telegramButton)) };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** One Message, as sendMessage and the edit methods answer it. */
export async function presentMessage(s: Pick<Services, 'telegramReads' | 'db'>, m: Message): Promise<TgMessage> {
  return (await Directory.forMessage(s.telegramReads, s.db.k, m)).message(m);
}

interface StoredParts {
  updateId: number;
  message?: Message;
  callback?: { id: string; fromUserId: string; data: string; message: Message };
}

function partsOf(u: UpdateObject): StoredParts {
  if (isRecord(u.message)) return { updateId: u.update_id, message: messageOf({ stored: u.message }) };
  const q = isRecord(u.callback_query) ? u.callback_query : {};
  return {
    updateId: u.update_id,
    callback: {
      id: str(q.id),
      fromUserId: isRecord(q.from) ? str(q.from.user_id) : '',
      data: str(q.data),
      message: messageOf({ stored: isRecord(q.message) ? q.message : {} }),
    },
  };
}

/** Stored Updates in Telegram's shape; one Directory for the whole batch. */
export async function presentUpdates(tx: Kysely<DB>, updates: readonly UpdateObject[]): Promise<TgUpdate[]> {
  const parts = updates.map(partsOf);
  const messages = parts.flatMap((p) => [p.message ?? p.callback?.message].filter((m) => m !== undefined));
  const dir = await Directory.forMessages(
    tx,
    messages,
    parts.flatMap((p) => (p.callback === undefined ? [] : [p.callback.fromUserId])),
  );
  return parts.map((p): TgUpdate => {
    if (p.callback === undefined)
      return { update_id: p.updateId, message: dir.message(p.message ?? messageOf({ stored: {} })) };
    const message = dir.message(p.callback.message);
    return {
      update_id: p.updateId,
      callback_query: {
        id: p.callback.id,
        from: dir.user(p.callback.fromUserId),
        message,
        chat_instance: String(message.chat.id),
        data: p.callback.data,
      },
    };
  });
}
