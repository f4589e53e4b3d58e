// Every Telegram method this surface serves, by name (names are case-insensitive, as in Telegram).
import type { TelegramMethod } from './method.js';
import { botMethods } from './methods/bot.js';
import { chatMethods } from './methods/chats.js';
import { commandMethods } from './methods/commands.js';
import { messageMethods } from './methods/messages.js';
import { updateMethods } from './methods/updates.js';

export const TELEGRAM_METHODS: readonly TelegramMethod[] = [
  ...botMethods,
  ...messageMethods,
  ...updateMethods,
  ...chatMethods,
  ...commandMethods,
];
const BY_NAME = new Map(TELEGRAM_METHODS.map((m) => [m.name.toLowerCase(), m]));

export const methodNamed = (name: string): TelegramMethod | undefined => BY_NAME.get(name.toLowerCase());
