import { Type } from 'typebox';
import { operatorErrors } from '../../http/internal.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { storedKeyboardSchema } from '../messaging/index.js';

const Message = Type.Object({
  id: Type.String(),
  chat_type: Type.Union([Type.Literal('private'), Type.Literal('group')]),
  group_id: Type.Optional(Type.String()),
  to_user_id: Type.Optional(Type.String()),
  from_user_id: Type.String(),
  object_name: Type.String(),
  title: Type.Optional(Type.String()),
  content: Type.String(),
  mention_user_ids: Type.Array(Type.String()),
  mention_all: Type.Optional(
    Type.Boolean({
      description:
        'true when the message mentions every member of its group (mention_type 1): notify them all, mention_user_ids holding only its first 1,000 members; absent otherwise',
    }),
  ),
  reply_markup: Type.Optional(
    storedKeyboardSchema(
      'the inline keyboard as the platform normalised and stored it; absent when the message has none',
    ),
  ),
  created_at: Type.String(),
  edited_at: Type.Optional(Type.String({ description: 'when the message was last edited; absent until it is' })),
});

const Feed = {
  querystring: Type.Object({
    after: Type.Optional(Type.String({ pattern: '^\\d{1,15}$' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  }),
  response: {
    200: Type.Object({ messages: Type.Array(Message), next_cursor: Type.String() }),
    ...operatorErrors,
  },
};

export function outboxRoutes(app: App, s: Services): void {
  app.get(
    '/internal/v1/messages',
    { schema: { tags: ['Operator'], summary: 'What bots and apps sent, in send order', ...Feed } },
    async (request) => s.outbox.page(Number(request.query.after ?? '0'), request.query.limit ?? 100),
  );
  app.get(
    '/internal/v1/messages/edits',
    {
      schema: {
        tags: ['Operator'],
        summary: 'The messages edited after the cursor, in edit order, each once and as it is now',
        description:
          "Its own cursor (not the send feed's): next_cursor passes the last edit read; a message edited again later comes back.",
        ...Feed,
      },
    },
    async (request) => s.outbox.edits(Number(request.query.after ?? '0'), request.query.limit ?? 100),
  );
}
