import { Type, type TSchema } from 'typebox';

export const MAX_TEXT = 5000;
const Text = Type.String({
  minLength: 1,
  maxLength: MAX_TEXT,
  description: `the message: plain text, rich-text markup or a medium's https URL, as parse_mode says (1 to ${MAX_TEXT} characters)`,
});
// decisions.md section 7: `content` is the text when `text` is absent, or empty (an empty optional
// parameter is one not given, http/params.ts). It is checked only then, by the method: senders that
// pass it beside `text` were never refused for it.
const TextFields = {
  text: Type.Optional(Text),
  content: Type.Optional(Type.Unknown({ description: `the text when text is absent (1 to ${MAX_TEXT} characters)` })),
};
// Checked against the accepted modes (case-insensitively) by the method, which names them in its error.
const ParseMode = Type.String({
  default: 'richtext',
  description: 'text, richtext, HTML, Markdown, MarkdownV2, image, video or file (any letter case)',
});
const ChatId = Type.String({
  minLength: 1,
  maxLength: 128,
  description: "the group's id, or in a private chat the user's id",
});
const ChatType = Type.Union([Type.Literal('private'), Type.Literal('group')], {
  description: 'private or group; when absent, a group if a group has that id, else a private chat',
});
const Markup = Type.Optional(
  Type.Unknown({
    description: '{"inline_keyboard": [[{text, url|callback_data|login_url, ...}]], font_size?, font_color?} as JSON',
  }),
);

export const SendMessageParams = Type.Object({
  chat_id: ChatId,
  chat_type: Type.Optional(ChatType),
  ...TextFields,
  parse_mode: ParseMode,
  reply_markup: Markup,
  mention_type: Type.Optional(
    Type.Union([Type.Literal(1), Type.Literal(2)], {
      description: '1: every member of the group; 2 (or absent): the users in mention_ids',
    }),
  ),
  mention_ids: Type.Optional(
    Type.Array(Type.String({ maxLength: 128 }), {
      maxItems: 1000,
      description: 'user ids to mention (a JSON array in a form field)',
    }),
  ),
});

export const SendToFansParams = Type.Object({ ...TextFields, parse_mode: ParseMode, reply_markup: Markup });

export const EditMessageParams = Type.Object({
  chat_id: ChatId,
  chat_type: Type.Optional(ChatType),
  message_id: Type.Union([Type.Integer(), Type.String({ minLength: 1, maxLength: 128 })], {
    description: "the message's platform id, or its telegram_message_id",
  }),
  ...TextFields,
  parse_mode: ParseMode,
  reply_markup: Markup,
});

export const BotUserSchema = Type.Object({
  user_id: Type.String(),
  name: Type.String(),
  address: Type.String(),
  pic: Type.String(),
  is_bot: Type.Boolean(),
});

const Button = Type.Object({}, { additionalProperties: true });
export const MessageSchema = Type.Object({
  message_id: Type.String(),
  telegram_message_id: Type.Integer({ description: "the message's number within its chat, as on /telegram" }),
  text: Type.String(),
  text_raw: Type.String(),
  kind: Type.String(),
  mention_users: Type.Array(BotUserSchema),
  from: BotUserSchema,
  chat: Type.Object({ id: Type.String(), type: Type.String(), title: Type.String() }),
  date: Type.Integer(),
  reply_markup: Type.Union([
    Type.Object({
      inline_keyboard: Type.Array(Type.Array(Button)),
      font_size: Type.Optional(Type.Union([Type.String(), Type.Number()])),
      font_color: Type.Optional(Type.String()),
    }),
    Type.Null(),
  ]),
});

export const MeSchema = Type.Object({
  user_id: Type.String(),
  name: Type.String(),
  address: Type.String(),
  pic: Type.String(),
  is_bot: Type.Literal(true),
  level: Type.Integer(),
  language_code: Type.String(),
});

/** Every bot method answers this envelope, success and error alike (errors with HTTP 200). */
export const BotEnvelope = <R extends TSchema>(result: R) =>
  Type.Object({
    ok: Type.Boolean(),
    result: Type.Union([result, Type.Null()]),
    error_code: Type.Integer(),
    message: Type.String(),
    success: Type.Boolean(),
    parameters: Type.Optional(Type.Object({ retry_after: Type.Integer() })),
  });

export const done = <R>(result: R) => ({ ok: true, result, error_code: 0, message: 'success', success: true });

// Bounded so that no value reaches a bigint query out of range; limit and timeout beyond their
// contract ranges are still accepted and clamped by the service (decisions.md section 2).
const INT32 = { minimum: -2_147_483_648, maximum: 2_147_483_647 };
export const GetUpdatesParams = Type.Object({
  offset: Type.Optional(
    Type.Integer({
      minimum: -Number.MAX_SAFE_INTEGER,
      maximum: Number.MAX_SAFE_INTEGER,
      description:
        'Updates with a lower id are confirmed and deleted, the rest returned until confirmed; without it (or 0) ' +
        'returned Updates count as confirmed once sent; beyond the next id the bot would give out, it confirms ' +
        'nothing and the oldest are returned until confirmed',
    }),
  ),
  limit: Type.Optional(Type.Integer({ ...INT32, description: '1 to 100, default 100; larger is treated as 100' })),
  timeout: Type.Optional(
    Type.Number({
      ...INT32,
      description: 'seconds to wait for an Update, default 0; above 50 is treated as 50',
    }),
  ),
  allowed_updates: Type.Optional(
    Type.Array(Type.String({ maxLength: 64 }), {
      // As many as Telegram names: python-telegram-bot's Update.ALL_TYPES lists them all.
      maxItems: 32,
      description:
        'the kinds of Update wanted (message, callback_query); a JSON array in a form field. Read as Telegram ' +
        'reads it: in any case, unknown names ignored, a list naming no kind means every kind',
    }),
  ),
});

const DropPending = Type.Optional(Type.Boolean({ description: 'drop the Updates waiting for the bot' }));

export const SetWebhookParams = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: 'the https URL that receives the Updates (not a loopback, private or link-local address)',
  }),
  secret_token: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_-]{16,256}$',
      description: 'becomes the Webhook Key; without it (or empty) a new Webhook Key is generated',
    }),
  ),
  payload_format: Type.Optional(
    Type.Union([Type.Literal('update'), Type.Literal('flat'), Type.Literal('telegram')], {
      description: "update (default), flat (the platform's older callback format) or telegram",
    }),
  ),
  drop_pending_updates: DropPending,
});

export const DeleteWebhookParams = Type.Object({ drop_pending_updates: DropPending });

export const AnswerCallbackParams = Type.Object({
  callback_query_id: Type.String({ minLength: 1, maxLength: 128, description: "the callback_query's id" }),
  text: Type.Optional(Type.String({ maxLength: 200, description: 'a notification shown to the user who pressed' })),
  show_alert: Type.Optional(Type.Boolean({ description: 'show the text as an alert instead' })),
});

export const UpdateSchema = Type.Object(
  { id: Type.Integer(), update_id: Type.Integer() },
  { additionalProperties: true, description: '{id, update_id, message} or {id, update_id, callback_query}' },
);

export const WebhookSet = Type.Object({
  url: Type.String(),
  webhook_key: Type.String(),
  webhook_secret: Type.String(),
  payload_format: Type.String(),
});

export const WebhookInfo = Type.Object({
  url: Type.String(),
  pending_update_count: Type.Integer(),
  last_error_date: Type.Integer(),
  last_error_message: Type.String(),
  max_connections: Type.Integer(),
  webhook_secret: Type.String(),
});
