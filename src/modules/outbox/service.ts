// The operator's feed of what bots and apps sent, in send order, by cursor.
import type { Db } from '../../db/connect.js';
import { parseIdList } from '../../lib/json.js';

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
  created_at: string;
}

export class OutboxService {
  constructor(private readonly db: Db) {}

  async page(after: number, limit: number): Promise<{ messages: OutboxMessageView[]; next_cursor: string }> {
    const rows = await this.db.k
      .selectFrom('outbox_messages')
      .selectAll()
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(limit)
      .execute();
    const messages = rows.map((r) => ({
      id: r.message_id,
      chat_type: r.chat_type,
      ...(r.group_id !== null ? { group_id: r.group_id } : {}),
      ...(r.to_user_id !== null ? { to_user_id: r.to_user_id } : {}),
      from_user_id: r.from_user_id,
      object_name: r.object_name,
      ...(r.title !== null ? { title: r.title } : {}),
      content: r.content,
      mention_user_ids: parseIdList(r.mention_user_ids),
      created_at: new Date(r.created_at).toISOString(),
    }));
    const last = rows.at(-1);
    return { messages, next_cursor: String(last?.seq ?? after) };
  }
}
