// Telegram's objects as JSON schemas, for responses and the OpenAPI document.
import { Type, type TSchema } from 'typebox';

export const UserSchema = Type.Object({
  id: Type.Integer(),
  is_bot: Type.Boolean(),
  first_name: Type.String(),
  username: Type.Optional(Type.String()),
});

export const ChatSchema = Type.Object({
  id: Type.Integer(),
  type: Type.String(),
  first_name: Type.Optional(Type.String()),
  title: Type.Optional(Type.String()),
});

const Entity = Type.Object({
  type: Type.String(),
  offset: Type.Integer(),
  length: Type.Integer(),
  url: Type.Optional(Type.String()),
});

const Button = Type.Object({
  text: Type.String(),
  url: Type.Optional(Type.String()),
  callback_data: Type.Optional(Type.String()),
  login_url: Type.Optional(Type.Object({ url: Type.String() })),
});

export const MessageSchema = Type.Object({
  message_id: Type.Integer(),
  from: UserSchema,
  chat: ChatSchema,
  date: Type.Integer(),
  text: Type.String(),
  entities: Type.Optional(Type.Array(Entity)),
  reply_markup: Type.Optional(Type.Object({ inline_keyboard: Type.Array(Type.Array(Button)) })),
  edit_date: Type.Optional(Type.Integer()),
});

export const UpdateSchema = Type.Object({
  update_id: Type.Integer(),
  message: Type.Optional(MessageSchema),
  callback_query: Type.Optional(
    Type.Object({
      id: Type.String(),
      from: UserSchema,
      message: MessageSchema,
      chat_instance: Type.String(),
      data: Type.String(),
    }),
  ),
});

export const Success = <R extends TSchema>(result: R) => Type.Object({ ok: Type.Literal(true), result });

export const Failure = Type.Object({
  ok: Type.Literal(false),
  error_code: Type.Integer(),
  description: Type.String(),
  parameters: Type.Optional(Type.Object({ retry_after: Type.Integer() })),
});
