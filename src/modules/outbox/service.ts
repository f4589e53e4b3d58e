// The operator's feeds of what bots and apps sent: the messages in send order, and the messages
// edited since a cursor, in edit order, each as it is now. The rows are messaging's (it owns
// outbox_messages); this module presents them.
import type { Db } from '../../db/connect.js';
import { parseMentions } from '../../lib/json.js';
import {
  type InlineKeyboard,
  keyboardOf,
  outboxAfter,
  outboxEditedAfter,
  type OutboxFeedRow,
} from '../messaging/index.js';

export interface OutboxMessageView {
  id: string;
  chat_type: 'private' | 'group';
  group_id?: string;
  to_user_id?: string;
  from_user_id: string;
  object_name: string;
  title?: string;
  content: string;
  mention_user_ids: string[];
  /**
   * True when the message mentions every member of its group (mention_type 1): notify them all,
   * mention_user_ids being only the first 1,000. Absent otherwise.
   */
  mention_all?: boolean;
  /** Absent when the message has no keyboard, as group_id and title are when they do not apply. */
  reply_markup?: InlineKeyboard;
  created_at: string;
  /** When it was last edited; absent until then. */
  edited_at?: string;
}

export interface OutboxPage {
  messages: OutboxMessageView[];
  next_cursor: string;
}

/**
 * Most bytes of stored content, title, mentions and keyboards a page is filled with (the rows
 * before its last one hold fewer): a page of 1,000 large messages made a body of 90 MB. A page may
 * therefore hold fewer messages than `limit` while more follow; only an empty page is the end.
 */
export const PAGE_BYTES = 4 * 1024 * 1024;

const iso = (ms: number): string => new Date(ms).toISOString();

function viewOf(r: OutboxFeedRow): OutboxMessageView {
  const keyboard = keyboardOf(r.reply_markup);
  const mentions = parseMentions(r.mention_user_ids);
  return {
    id: r.message_id,
    chat_type: r.chat_type,
    ...(r.group_id !== null ? { group_id: r.group_id } : {}),
    ...(r.to_user_id !== null ? { to_user_id: r.to_user_id } : {}),
    from_user_id: r.from_user_id,
    object_name: r.object_name,
    ...(r.title !== null ? { title: r.title } : {}),
    content: r.content,
    mention_user_ids: mentions.ids,
    ...(mentions.all ? { mention_all: true } : {}),
    ...(keyboard !== null ? { reply_markup: keyboard } : {}),
    created_at: iso(r.created_at),
    ...(r.edited_at !== null ? { edited_at: iso(r.edited_at) } : {}),
  };
}

/** A page and the cursor after it: its last row's, or the one asked for when it is empty. */
function pageOf<R extends OutboxFeedRow>(rows: R[], cursor: (r: R) => number, after: number): OutboxPage {
  const last = rows.at(-1);
  return { messages: rows.map(viewOf), next_cursor: String(last === undefined ? after : cursor(last)) };
}

export class OutboxService {
  constructor(private readonly db: Db) {}

  /** The messages sent after the cursor (a seq), in send order; an edit does not move a message. */
  async page(after: number, limit: number): Promise<OutboxPage> {
    return pageOf(await outboxAfter(this.db.k, after, limit, PAGE_BYTES), (r) => r.seq, after);
  }

  /**
   * The messages whose last edit came after the cursor (an edit_seq), in edit order, as they are
   * now: a message edited several times since the cursor appears once, at its last edit.
   */
  async edits(after: number, limit: number): Promise<OutboxPage> {
    return pageOf(await outboxEditedAfter(this.db.k, after, limit, PAGE_BYTES), (r) => r.edit_seq, after);
  }
}
