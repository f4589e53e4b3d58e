// sendMessage, sendPhoto, editMessageText, editMessageReplyMarkup, sendChatAction: the messaging
// core's send and edit (its rules, limits and idempotency), presented as Telegram Messages. No
// deleteMessage: a delivered message cannot be recalled here, and telegram-api.md answers a method
// outside its table 404.
import { Type } from 'typebox';
import { AppError, Errors } from '../../../errors.js';
import {
  botContent,
  BUTTON_FIELDS,
  type ChatRef,
  type Content,
  type ConversionRefusal,
  type InlineKeyboard,
  isHttpsUrl,
  KEYBOARD_FIELDS,
  literalSegment,
  parseKeyboard,
  parseMarkup,
  renderMarkup,
} from '../../messaging/index.js';
import { IdParam, resolveChat } from '../chats.js';
import { isRecord } from '../params.js';
import { chatOf } from './chats.js';
import { markupOfEntities, type MessageEntity } from '../entities.js';
import { badRequest } from '../errors.js';
import { method, type MethodCall } from '../method.js';
import { presentMessage } from '../presenter.js';
import * as repo from '../repo.js';
import { MessageSchema } from '../schema.js';

const Text = Type.String({ minLength: 1, maxLength: 5000 });
const ParseMode = Type.Optional(Type.String({ description: 'HTML, MarkdownV2 or Markdown' }));
const Entities = Type.Optional(
  Type.Array(
    Type.Object(
      {
        type: Type.String(),
        offset: Type.Integer({ minimum: 0 }),
        length: Type.Integer({ minimum: 0 }),
        url: Type.Optional(Type.String()),
      },
      { additionalProperties: true },
    ),
    { maxItems: 1000 },
  ),
);
const ReplyMarkup = Type.Optional(
  Type.Unknown({ description: 'InlineKeyboardMarkup {"inline_keyboard": [[{text, url|callback_data|login_url}]]}' }),
);
/** Accepted and ignored, as telegram-api.md lists them. */
const Ignored = {
  reply_parameters: Type.Optional(Type.Unknown()),
  link_preview_options: Type.Optional(Type.Unknown()),
  disable_web_page_preview: Type.Optional(Type.Unknown()),
  disable_notification: Type.Optional(Type.Unknown()),
  protect_content: Type.Optional(Type.Unknown()),
  message_thread_id: Type.Optional(Type.Unknown()),
  allow_sending_without_reply: Type.Optional(Type.Unknown()),
  reply_to_message_id: Type.Optional(Type.Unknown()),
  business_connection_id: Type.Optional(Type.Unknown()),
  message_effect_id: Type.Optional(Type.Unknown()),
};

/** Telegram's limit on callback_data, in UTF-8 bytes. */
const MAX_CALLBACK_DATA_BYTES = 64;

/**
 * Only the fields the platform acts on: Telegram ignores the others, and libraries send them
 * (Telegraf's `hide: false` on every button, newer fields such as `style`). A button whose only
 * action cannot be performed here (switch_inline_query, web_app, pay, ...) is thereby kept as a label
 * (decisions.md section 7: a button may have no action), and keyboards built for Telegram show.
 */
const known = (fields: ReadonlySet<string>, o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([field]) => fields.has(field)));

/** A button as the core takes it: Telegram's data limit checked, fields it does not act on dropped. */
function telegramButton(button: unknown): unknown {
  if (!isRecord(button)) return button;
  const data = button.callback_data;
  if (typeof data === 'string' && Buffer.byteLength(data) > MAX_CALLBACK_DATA_BYTES) {
    throw badRequest('BUTTON_DATA_INVALID');
  }
  return known(BUTTON_FIELDS, button);
}

/** Only an inline keyboard is kept; reply keyboards and the like are accepted and ignored. */
function keyboardOf(replyMarkup: unknown): InlineKeyboard | null {
  if (!isRecord(replyMarkup) || !('inline_keyboard' in replyMarkup)) return null;
  const rows = replyMarkup.inline_keyboard;
  const parsed = parseKeyboard({
    ...known(KEYBOARD_FIELDS, replyMarkup),
    inline_keyboard: Array.isArray(rows)
      ? rows.map((row: unknown) => (Array.isArray(row) ? row.map(telegramButton) : row))
      : rows,
  });
  if (!parsed.ok) throw badRequest(parsed.error);
  return parsed.keyboard;
}

/** HTML or Markdown the platform refuses, in Telegram's words: bots fall back to plain text on them. */
const telegramRefusal: ConversionRefusal = (reason, nothingLeft) =>
  badRequest(nothingLeft ? 'message text is empty' : `can't parse entities: ${reason}`);

/** Telegram's parse_mode (none: plain text), or explicit entities, as the core's content. */
function contentOf(
  text: string,
  p: { parse_mode?: string | undefined; entities?: MessageEntity[] | undefined },
  keyboard: InlineKeyboard | null,
): Content {
  if (p.parse_mode !== undefined && p.parse_mode !== '') {
    if (!['html', 'markdown', 'markdownv2'].includes(p.parse_mode.toLowerCase())) {
      // Telegram's words, which clients match to fall back to plain text.
      throw badRequest('unsupported parse_mode');
    }
    return botContent(p.parse_mode, text, keyboard, telegramRefusal);
  }
  const rich = markupOfEntities(text, p.entities ?? []);
  return rich === undefined ? botContent('text', text, keyboard) : botContent('richtext', rich, keyboard);
}

/**
 * A message's text as Telegram takes it: text of only whitespace is empty, as "" is (the schema's
 * minLength). Captions are not held to it: Telegram sends a photo with a blank caption.
 */
function messageText(text: string): string {
  if (text.trim() === '') throw badRequest('message text is empty');
  return text;
}

async function send(call: MethodCall, chat: ChatRef, content: Content) {
  const sent = await call.s.messaging.send(call.credential, {
    ...content,
    chat,
    mentionUserIds: [],
    idempotencyKey: call.idempotencyKey(),
  });
  if (sent.replayed) call.replayed();
  return presentMessage(call.s, sent.message);
}

const SendMessageParams = Type.Object({
  chat_id: IdParam,
  text: Text,
  parse_mode: ParseMode,
  entities: Entities,
  reply_markup: ReplyMarkup,
  ...Ignored,
});

const SendPhotoParams = Type.Object({
  chat_id: IdParam,
  photo: Type.Unknown({ description: 'the https URL of the photo (uploads are not accepted)' }),
  caption: Type.Optional(Type.String({ maxLength: 1024 })),
  parse_mode: ParseMode,
  caption_entities: Entities,
  reply_markup: ReplyMarkup,
  has_spoiler: Type.Optional(Type.Unknown()),
  show_caption_above_media: Type.Optional(Type.Unknown()),
  ...Ignored,
});

const EditTarget = {
  chat_id: Type.Optional(IdParam),
  message_id: Type.Optional(IdParam),
  inline_message_id: Type.Optional(Type.String()),
};

/** The edited message: chat_id and message_id; inline messages do not exist here. */
async function target(
  call: MethodCall,
  p: { chat_id?: number | string; message_id?: number | string; inline_message_id?: string },
) {
  if (p.inline_message_id !== undefined) throw badRequest('inline messages are not supported');
  if (p.chat_id === undefined) throw badRequest('chat_id is empty');
  if (p.message_id === undefined) throw badRequest('message identifier is not specified');
  // An unknown chat is Telegram's "chat not found", before any message is looked for in it. The
  // core takes the message's Telegram number or platform id as given.
  return { chat: (await chatOf(call, p.chat_id)).chat, messageId: p.message_id };
}

/**
 * An edit the core refused as not finding the bot's message: a message of the chat that someone
 * else sent is Telegram's "message can't be edited" (the core looks among the bot's messages only).
 */
async function editing<T>(call: MethodCall, chat: ChatRef, messageId: string | number, edit: () => Promise<T>) {
  try {
    return await edit();
  } catch (e) {
    if (!(e instanceof AppError) || e.def !== Errors.messageNotFound) throw e;
    const sender = await repo.senderInChat(call.s.db.k, chat, call.botId, messageId);
    throw sender === undefined ? e : new AppError(Errors.notOwnMessage);
  }
}

/** A photo message: the image above its caption, as rich text (the Lv.2 image rule applies in the core). */
function photoContent(
  url: string,
  p: { caption?: string | undefined; parse_mode?: string | undefined; caption_entities?: MessageEntity[] | undefined },
  keyboard: InlineKeyboard | null,
): Content {
  const caption =
    p.caption === undefined || p.caption === ''
      ? undefined
      : contentOf(p.caption, { parse_mode: p.parse_mode, entities: p.caption_entities }, keyboard);
  const parsed = caption?.rich === true ? parseMarkup(caption.content) : undefined;
  const captionSegments =
    parsed?.ok === true ? parsed.markup.segments : caption === undefined ? [] : [literalSegment(caption.content)];
  const content = renderMarkup({
    segments: [
      { kind: 'img', src: url, position: 'head', rawPosition: null, href: null, height: null, width: null },
      ...captionSegments,
    ],
  });
  return { objectName: 'richtext', rich: true, title: null, content, replyMarkup: keyboard };
}

/** The actions Telegram takes (with the older names of two of them), as its server reads them: in any case. */
const CHAT_ACTIONS = new Set([
  'typing',
  'upload_photo',
  'record_video',
  'upload_video',
  'record_voice',
  'upload_voice',
  'record_audio',
  'upload_audio',
  'upload_document',
  'choose_sticker',
  'find_location',
  'record_video_note',
  'upload_video_note',
]);

export const messageMethods = [
  method({
    name: 'sendMessage',
    summary: 'Send a text message (parse_mode HTML, MarkdownV2 or Markdown, or entities) with an inline keyboard',
    params: SendMessageParams,
    result: MessageSchema,
    run: async (call, p) => {
      // Telegram reads the text before it looks for the chat.
      const text = messageText(p.text);
      const chat = await resolveChat(call.s, p.chat_id);
      return send(call, chat, contentOf(text, p, keyboardOf(p.reply_markup)));
    },
  }),
  method({
    name: 'sendPhoto',
    summary: 'Send a photo given as an https URL, with a caption',
    params: SendPhotoParams,
    result: MessageSchema,
    run: async (call, p) => {
      // A file part, or (as grammY and others send one) an attach:// reference to it.
      if (typeof p.photo !== 'string' || p.photo.startsWith('attach://')) {
        throw badRequest('uploading files is not supported; send the photo as an https URL');
      }
      // Only https URLs are taken (no file ids here): Telegram's text for a photo it cannot read.
      if (!isHttpsUrl(p.photo)) throw badRequest('wrong file identifier/HTTP URL specified');
      const chat = await resolveChat(call.s, p.chat_id);
      return send(call, chat, photoContent(p.photo, p, keyboardOf(p.reply_markup)));
    },
  }),
  method({
    name: 'editMessageText',
    summary: "Replace the text (and keyboard) of one of the bot's own messages",
    params: Type.Object({
      ...EditTarget,
      text: Text,
      parse_mode: ParseMode,
      entities: Entities,
      reply_markup: ReplyMarkup,
      link_preview_options: Type.Optional(Type.Unknown()),
      business_connection_id: Type.Optional(Type.Unknown()),
    }),
    result: MessageSchema,
    run: async (call, p) => {
      const text = messageText(p.text);
      const { chat, messageId } = await target(call, p);
      const keyboard = keyboardOf(p.reply_markup);
      const edited = await editing(call, chat, messageId, () =>
        call.s.messaging.edit(call.credential, chat, messageId, contentOf(text, p, keyboard), {
          refuseUnchanged: true,
        }),
      );
      return presentMessage(call.s, edited);
    },
  }),
  method({
    name: 'editMessageReplyMarkup',
    summary: "Replace the inline keyboard of one of the bot's own messages",
    params: Type.Object({
      ...EditTarget,
      reply_markup: ReplyMarkup,
      business_connection_id: Type.Optional(Type.Unknown()),
    }),
    result: MessageSchema,
    run: async (call, p) => {
      const { chat, messageId } = await target(call, p);
      const keyboard = keyboardOf(p.reply_markup);
      // The content is kept as the edit finds it, under its lock: read here first, a text edit
      // committed in between would be reverted.
      const edited = await editing(call, chat, messageId, () =>
        call.s.messaging.edit(call.credential, chat, messageId, { replyMarkup: keyboard }, { refuseUnchanged: true }),
      );
      return presentMessage(call.s, edited);
    },
  }),
  method({
    name: 'sendChatAction',
    summary: 'Accepted for a chat that exists (and a group the bot is in); nothing is shown',
    params: Type.Object({
      chat_id: IdParam,
      action: Type.String(),
      message_thread_id: Type.Optional(Type.Unknown()),
      business_connection_id: Type.Optional(Type.Unknown()),
    }),
    result: Type.Literal(true),
    run: async (call, p) => {
      if (!CHAT_ACTIONS.has(p.action.toLowerCase())) throw badRequest('wrong parameter action in request');
      await chatOf(call, p.chat_id);
      return true as const;
    },
  }),
];
