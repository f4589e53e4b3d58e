// A user's message as the application reports it (the message.created event's data), and the row
// chat records for it.
import { Type, type Static } from 'typebox';
import { Id } from '../../lib/schemas.js';
import type { UserMessage } from '../messaging/index.js';

const common = {
  message_id: Id,
  from_user_id: Id,
  kind: Type.String({ minLength: 1, maxLength: 64 }),
  text: Type.Optional(Type.String({ maxLength: 20_000 })),
  mention_user_ids: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
};

export const MessageCreated = Type.Union([
  Type.Object({ ...common, chat_type: Type.Literal('group'), group_id: Id }),
  Type.Object({ ...common, chat_type: Type.Literal('private'), to_user_id: Id }),
]);

export type MessageCreated = Static<typeof MessageCreated>;

/** The users the message names, who must all exist: sender, mentions, and the addressee of a private one. */
export const peopleOf = (d: MessageCreated): string[] => [
  d.from_user_id,
  ...(d.mention_user_ids ?? []),
  ...(d.chat_type === 'private' ? [d.to_user_id] : []),
];

/** The message as chat records it, received at `now`. */
export const userMessage = (d: MessageCreated, now: number): UserMessage => ({
  message_id: d.message_id,
  chat_type: d.chat_type,
  from_user_id: d.from_user_id,
  group_id: d.chat_type === 'group' ? d.group_id : null,
  to_user_id: d.chat_type === 'private' ? d.to_user_id : null,
  kind: d.kind,
  text: d.text ?? '',
  mention_user_ids: d.mention_user_ids ?? [],
  created_at: now,
});
