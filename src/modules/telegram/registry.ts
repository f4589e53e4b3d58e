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
/** Telegram's deprecated names, which it still serves and Telegraf and older libraries still call. */
const ALIASES: readonly (readonly [alias: string, name: string])[] = [['getChatMembersCount', 'getChatMemberCount']];

const BY_NAME = new Map(TELEGRAM_METHODS.map((m) => [m.name.toLowerCase(), m]));
for (const [alias, name] of ALIASES) {
  const m = BY_NAME.get(name.toLowerCase());
  // An alias of no method is a mistake here, found when the server starts.
  if (m === undefined) throw new Error(`Telegram method alias ${alias} names no method ${name}`);
  BY_NAME.set(alias.toLowerCase(), m);
}

export const methodNamed = (name: string): TelegramMethod | undefined => BY_NAME.get(name.toLowerCase());
