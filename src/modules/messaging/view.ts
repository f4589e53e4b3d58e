// The platform's Message object (decisions.md section 2): the bot core's Message (message.ts) as
// the native bot methods answer it and as stored Updates keep it, with its people and chat named.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.js';
import type { InlineKeyboard } from './keyboard.js';
import { parseMarkup, type Segment } from './markup.js';
import type { Message } from './message.js';
import { chatUsers, groupTitle } from './repo.js';

export interface BotUser {
  user_id: string;
  name: string;
  address: string;
  pic: string;
  is_bot: boolean;
}

export interface MessageView {
  message_id: string;
  /** The message's number within its chat, as the Telegram surface shows it (telegram-api.md "Numeric ids"). */
  telegram_message_id: number;
  text: string;
  text_raw: string;
  kind: string;
  mention_users: BotUser[];
  from: BotUser;
  chat: { id: string; type: 'private' | 'group'; title: string };
  date: number;
  reply_markup: InlineKeyboard | null;
}

type UserRow = Awaited<ReturnType<typeof chatUsers>>[number];

/** A user as a Message names them. */
export type ViewUser = Pick<UserRow, 'user_id' | 'name' | 'wallet_address' | 'avatar' | 'is_bot'>;

export const botUser = (u: ViewUser): BotUser => ({
  user_id: u.user_id,
  name: u.name,
  address: u.wallet_address,
  pic: u.avatar,
  is_bot: u.is_bot === 1,
});

const unknownUser = (id: string): BotUser => ({ user_id: id, name: '', address: '', pic: '', is_bot: false });

const segmentText = (s: Segment): string => (s.kind === 'img' ? '' : s.text);

/** What a reader sees: rich markup without its tags' JSON. */
export function plainText(content: string, rich: boolean): string {
  if (!rich) return content;
  const parsed = parseMarkup(content);
  return parsed.ok ? parsed.markup.segments.map(segmentText).join('') : content;
}

export async function messageView(tx: Kysely<DB>, m: Message): Promise<MessageView> {
  const other = m.chat.type === 'private' && m.chat.id !== '' ? [m.chat.id] : [];
  const users = new Map(
    (await chatUsers(tx, [m.fromUserId, ...m.mentionUserIds, ...other])).map((u) => [u.user_id, u]),
  );
  return viewWith(m, users, m.chat.type === 'group' ? await groupTitle(tx, m.chat.id) : undefined);
}

/**
 * messageView with what it reads given: the users it names (sender, mentions, the other user of a
 * private chat) and the group's title (undefined: no such group, or a private chat).
 */
export function viewWith(m: Message, users: ReadonlyMap<string, ViewUser>, title: string | undefined): MessageView {
  const other = m.chat.type === 'private' ? m.chat.id : '';
  const user = (id: string) => {
    const u = users.get(id);
    return u === undefined ? unknownUser(id) : botUser(u);
  };
  const chat =
    m.chat.type === 'private'
      ? { id: other, type: 'private' as const, title: users.get(other)?.name ?? '' }
      : { id: m.chat.id, type: 'group' as const, title: title ?? '' };
  return {
    message_id: m.messageId,
    // Every Message this presents was built from a row, which has its number.
    telegram_message_id: m.number ?? 0,
    text: plainText(m.content, m.rich),
    text_raw: m.content,
    kind: m.kind,
    mention_users: m.mentionUserIds.map(user),
    from: user(m.fromUserId),
    chat,
    date: Math.floor((m.editedAt ?? m.sentAt) / 1000),
    reply_markup: m.replyMarkup,
  };
}
