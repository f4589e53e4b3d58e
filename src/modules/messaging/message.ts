// The bot core's Message: one message as a bot sees it, whoever wrote it. `messageOf` is the one
// builder, for a bot's sent or edited message (its outbox row), a user's message fanned out to
// bots (chat_messages) and the Message kept in a stored Update. Each surface presents the result:
// view.ts as the platform's Message (decisions.md section 2, also the form an Update keeps),
// telegram/presenter.ts as Telegram's.
import type { ChatMessagesTable } from '../../db/types.js';
import { parseIdList } from '../../lib/json.js';
import { keyboardOf, type InlineKeyboard } from './keyboard.js';
import { isMedium } from './media.js';
import type { OutboxMessageRow } from './repo.js';

export interface Message {
  messageId: string;
  /** Its number within its chat (telegram-api.md "Numeric ids"); absent from Updates stored before it was kept. */
  number?: number;
  fromUserId: string;
  /** The chat as the bot sees it: a group, or the other user of a private chat. */
  chat: { type: 'private' | 'group'; id: string };
  /** text, richtext, a medium (image, video, file) or the kind the application reported. */
  kind: string;
  /** As written: the rich markup's source when `rich`. */
  content: string;
  rich: boolean;
  mentionUserIds: readonly string[];
  /** When it was sent and last edited (ms). */
  sentAt: number;
  editedAt: number | null;
  replyMarkup: InlineKeyboard | null;
}

/** A user's message as the application reported it (chat_messages), the mentions as a list. */
export type UserMessage = Omit<ChatMessagesTable, 'mention_user_ids'> & { mention_user_ids: readonly string[] };

export type MessageSource =
  /** A bot's own message, sent or edited. */
  | { bot: OutboxMessageRow }
  /** A user's message, as the bot it is delivered to sees it; `number` is the one the store gave it. */
  | { user: UserMessage; number: number }
  /** The platform's Message (view.ts) kept in a stored Update. */
  | { stored: Record<string, unknown> };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function messageOf(source: MessageSource): Message {
  if ('bot' in source) {
    const row = source.bot;
    const rich = row.normalized !== null;
    return {
      messageId: row.message_id,
      number: row.telegram_message_id,
      fromUserId: row.from_user_id,
      chat:
        row.chat_type === 'group'
          ? { type: 'group', id: row.group_id ?? '' }
          : { type: 'private', id: row.to_user_id ?? '' },
      kind: isMedium(row.object_name) ? row.object_name : rich ? 'richtext' : 'text',
      content: row.content,
      rich,
      mentionUserIds: parseIdList(row.mention_user_ids),
      sentAt: row.created_at,
      editedAt: row.edited_at,
      replyMarkup: keyboardOf(row.reply_markup),
    };
  }
  if ('user' in source) {
    const m = source.user;
    return {
      messageId: m.message_id,
      number: source.number,
      fromUserId: m.from_user_id,
      // In a private chat the chat is the other user: the sender.
      chat: m.chat_type === 'group' ? { type: 'group', id: m.group_id ?? '' } : { type: 'private', id: m.from_user_id },
      kind: m.kind,
      content: m.text,
      rich: false,
      mentionUserIds: m.mention_user_ids,
      sentAt: m.created_at,
      editedAt: null,
      replyMarkup: null,
    };
  }
  const m = source.stored;
  const chat = isRecord(m.chat) ? m.chat : {};
  const mentions = Array.isArray(m.mention_users) ? m.mention_users : [];
  return {
    messageId: str(m.message_id),
    ...(typeof m.telegram_message_id === 'number' ? { number: m.telegram_message_id } : {}),
    fromUserId: isRecord(m.from) ? str(m.from.user_id) : '',
    chat: chat.type === 'group' ? { type: 'group', id: str(chat.id) } : { type: 'private', id: str(chat.id) },
    kind: str(m.kind),
    content: str(m.text_raw),
    rich: m.kind === 'richtext',
    mentionUserIds: mentions.map((u) => (isRecord(u) ? str(u.user_id) : '')),
    // The stored date is the last edit's, in seconds.
    sentAt: typeof m.date === 'number' ? m.date * 1000 : 0,
    editedAt: null,
    replyMarkup: keyboardOf(m.reply_markup ?? null),
  };
}
