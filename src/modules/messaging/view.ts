// The Message object of the bot API (decisions.md section 2), built from an outbox row.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.js';
import { parseIdList } from '../../lib/json.js';
import { parseKeyboard, type InlineKeyboard } from './keyboard.js';
import { parseMarkup, type Segment } from './markup.js';
import { isMedium } from './media.js';
import { chatUsers, groupTitle, type OutboxRow } from './repo.js';

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

export const botUser = (u: Pick<UserRow, 'user_id' | 'name' | 'wallet_address' | 'avatar' | 'is_bot'>): BotUser => ({
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

const keyboardOf = (json: string | null): InlineKeyboard | null => {
  const parsed = parseKeyboard(json);
  return parsed.ok ? parsed.keyboard : null;
};

export async function messageView(tx: Kysely<DB>, row: Omit<OutboxRow, 'seq'>): Promise<MessageView> {
  const mentions = parseIdList(row.mention_user_ids);
  const other = row.chat_type === 'private' ? (row.to_user_id ?? '') : '';
  const users = new Map(
    (await chatUsers(tx, [row.from_user_id, ...mentions, ...(other === '' ? [] : [other])])).map((u) => [u.user_id, u]),
  );
  const user = (id: string) => {
    const u = users.get(id);
    return u === undefined ? unknownUser(id) : botUser(u);
  };
  const chat =
    row.chat_type === 'private'
      ? { id: other, type: 'private' as const, title: users.get(other)?.name ?? '' }
      : {
          id: row.group_id ?? '',
          type: 'group' as const,
          title: (row.group_id === null ? undefined : await groupTitle(tx, row.group_id)) ?? '',
        };
  return {
    message_id: row.message_id,
    telegram_message_id: row.telegram_message_id,
    text: plainText(row.content, row.normalized !== null),
    text_raw: row.content,
    kind: isMedium(row.object_name) ? row.object_name : row.normalized === null ? 'text' : 'richtext',
    mention_users: mentions.map(user),
    from: user(row.from_user_id),
    chat,
    date: Math.floor((row.edited_at ?? row.created_at) / 1000),
    reply_markup: keyboardOf(row.reply_markup),
  };
}
