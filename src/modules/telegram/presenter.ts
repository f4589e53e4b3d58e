// The one place that shows the platform's objects in Telegram's shapes (telegram-api.md "Objects"):
// User, Chat, Message, CallbackQuery, Update. The core hands over rows and stored Updates; the
// numbers they need are read in one batch per kind (a Directory), never the objects again.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.js';
import { type InlineKeyboard, type OutboxRow, parseKeyboard } from '../messaging/index.js';
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

/** A bot's username: libraries match `/command@username` with it. */
export const botUsername = (telegramId: number): string => `bot${telegramId}`;

/** What a message is, in the platform's ids: from a bot's outbox row or a stored Update's Message. */
export interface MessageFacts {
  messageId: string;
  /** Known when the caller has it (a row); else read by `messageId`. */
  number?: number;
  fromUserId: string;
  /** The chat as the receiving side sees it: a group, or the other user of a private chat. */
  chat: { type: 'group' | 'private'; id: string };
  date: number;
  editDate?: number;
  content: string;
  rich: boolean;
  replyMarkup: InlineKeyboard | null;
}

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

  static forFacts(tx: Kysely<DB>, facts: readonly MessageFacts[], moreUsers: readonly string[] = []) {
    return Directory.load(tx, {
      users: [...moreUsers, ...facts.flatMap((f) => [f.fromUserId, ...(f.chat.type === 'private' ? [f.chat.id] : [])])],
      groups: facts.flatMap((f) => (f.chat.type === 'group' ? [f.chat.id] : [])),
      messages: facts.filter((f) => f.number === undefined).map((f) => f.messageId),
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

  chat(chat: MessageFacts['chat']): TgChat {
    if (chat.type === 'private') {
      const u = this.user(chat.id);
      return { id: u.id, type: 'private', first_name: u.first_name };
    }
    const g = this.groups.get(chat.id);
    return { id: g?.telegram_id ?? 0, type: 'supergroup', title: g?.name ?? '' };
  }

  message(f: MessageFacts): TgMessage {
    const { text, entities } = textAndEntities(f.content, f.rich);
    const keyboard = f.replyMarkup === null ? undefined : telegramKeyboard(f.replyMarkup);
    return {
      message_id: f.number ?? this.messages.get(f.messageId) ?? 0,
      from: this.user(f.fromUserId),
      chat: this.chat(f.chat),
      date: f.date,
      text,
      ...(entities.length > 0 ? { entities } : {}),
      ...(keyboard !== undefined ? { reply_markup: keyboard } : {}),
      ...(f.editDate !== undefined ? { edit_date: f.editDate } : {}),
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

const seconds = (ms: number): number => Math.floor(ms / 1000);

/** A bot's message as stored, seen from its chat (in a private chat, the chat is the other user). */
export function factsOfRow(row: Omit<OutboxRow, 'seq'>): MessageFacts {
  const keyboard = parseKeyboard(row.reply_markup);
  return {
    messageId: row.message_id,
    number: row.telegram_message_id,
    fromUserId: row.from_user_id,
    chat:
      row.chat_type === 'group'
        ? { type: 'group', id: row.group_id ?? '' }
        : { type: 'private', id: row.to_user_id ?? '' },
    date: seconds(row.created_at),
    ...(row.edited_at !== null ? { editDate: seconds(row.edited_at) } : {}),
    content: row.content,
    rich: row.normalized !== null,
    replyMarkup: keyboard.ok ? keyboard.keyboard : null,
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The Message of a stored Update (decisions.md section 2 shape) as facts. */
function factsOfStored(m: Record<string, unknown>): MessageFacts {
  const from = isRecord(m.from) ? str(m.from.user_id) : '';
  const chat = isRecord(m.chat) ? m.chat : {};
  const keyboard = parseKeyboard(m.reply_markup ?? null);
  return {
    messageId: str(m.message_id),
    // Updates stored before the number was kept in them are numbered from the Directory.
    ...(typeof m.telegram_message_id === 'number' ? { number: m.telegram_message_id } : {}),
    fromUserId: from,
    chat: chat.type === 'group' ? { type: 'group', id: str(chat.id) } : { type: 'private', id: str(chat.id) },
    date: typeof m.date === 'number' ? m.date : 0,
    content: str(m.text_raw),
    rich: m.kind === 'richtext',
    replyMarkup: keyboard.ok ? keyboard.keyboard : null,
  };
}

interface StoredParts {
  updateId: number;
  message?: MessageFacts;
  callback?: { id: string; fromUserId: string; data: string; message: MessageFacts };
}

function partsOf(u: UpdateObject): StoredParts {
  if (isRecord(u.message)) return { updateId: u.update_id, message: factsOfStored(u.message) };
  const q = isRecord(u.callback_query) ? u.callback_query : {};
  return {
    updateId: u.update_id,
    callback: {
      id: str(q.id),
      fromUserId: isRecord(q.from) ? str(q.from.user_id) : '',
      data: str(q.data),
      message: factsOfStored(isRecord(q.message) ? q.message : {}),
    },
  };
}

/** Stored Updates in Telegram's shape; one Directory for the whole batch. */
export async function presentUpdates(tx: Kysely<DB>, updates: readonly UpdateObject[]): Promise<TgUpdate[]> {
  const parts = updates.map(partsOf);
  const facts = parts.flatMap((p) => [p.message ?? p.callback?.message].filter((f) => f !== undefined));
  const dir = await Directory.forFacts(
    tx,
    facts,
    parts.flatMap((p) => (p.callback === undefined ? [] : [p.callback.fromUserId])),
  );
  return parts.map((p): TgUpdate => {
    if (p.callback === undefined)
      return { update_id: p.updateId, message: dir.message(p.message ?? factsOfStored({})) };
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
