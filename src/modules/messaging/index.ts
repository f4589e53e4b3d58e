// messaging owns sends of both generations and the bot send/edit core (outbox_messages, idempotency_keys), the bot core's Message (messageOf, its one builder), markup and keyboards.
// The module's public surface: other modules and the composition root import it only from here.
export { BUTTON_FIELDS, KEYBOARD_FIELDS, keyboardOf, parseKeyboard, storedKeyboardSchema } from './keyboard.js';
export type { InlineKeyboard, KeyboardButton } from './keyboard.js';
export { isColor, isHttpsUrl, layout, literalSegment, parseMarkup, renderMarkup } from './markup.js';
export type { ImageBlock, Segment } from './markup.js';
export { nextMessageNumbers, numberOf } from './numbers.js';
export { idempotencyKeyOf } from './idempotency-key.js';
export { messageOf } from './message.js';
export type { Message, UserMessage } from './message.js';
export { chatUsers, expireIdempotencyKeys, findOutbox, insertOutbox, outboxAfter, outboxEditedAfter } from './repo.js';
export type { OutboxFeedRow, OutboxRow } from './repo.js';
export { botContent } from './richtext/parse-mode.js';
export type { ConversionRefusal } from './richtext/parse-mode.js';
export { messagingRoutes } from './routes.js';
export { MessagingService } from './service.js';
export type { ChatRef, Content, KeyboardEdit } from './service.js';
export { botUser, messageView, viewWith } from './view.js';
export type { BotUser, MessageView, ViewUser } from './view.js';
