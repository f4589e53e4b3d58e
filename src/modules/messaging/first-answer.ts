// decisions.md section 3: a repeat of a keyed send "returns the first response". The message as it
// was sent (its outbox row then) is kept with the key, so a replay after an edit still shows the
// first answer, not the message as edited since.
import { Type, type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { OutboxMessageRow } from './repo.js';

const Text = Type.String();
const OrNull = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

const SentRow = Type.Object({
  message_id: Text,
  chat_type: Type.Union([Type.Literal('private'), Type.Literal('group')]),
  group_id: OrNull(Text),
  to_user_id: OrNull(Text),
  from_user_id: Text,
  app_id: OrNull(Text),
  object_name: Text,
  title: OrNull(Text),
  content: Text,
  normalized: OrNull(Text),
  mention_user_ids: Text,
  reply_markup: OrNull(Text),
  created_at: Type.Number(),
  edited_at: OrNull(Type.Number()),
  telegram_message_id: Type.Number(),
});
const check = Compile(SentRow);

/** The row kept with a key: what the send answered. */
export const keptAnswer = (row: OutboxMessageRow): string => JSON.stringify(row);

/** The sent row a key kept, or undefined when it kept only the message id (keys stored before rows were). */
export function firstAnswer(body: string): Static<typeof SentRow> | undefined {
  if (!body.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    return check.Check(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
