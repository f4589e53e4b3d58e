// Telegram's chat_id, user_id and message_id parameters: Telegram numbers or the platform's own
// string ids (telegram-api.md "Numeric ids"), resolved to the core's references.
import { Type } from 'typebox';
import type { Services } from '../../services.js';
import { type ChatRef, numberOf } from '../messaging/index.js';

// Text first: with coercion, a digit string tried as an integer first would become a number, and
// one beyond 2^53 (a bot's platform id) would lose its last digits. A number is read as its text.
export const IdParam = Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Integer()], {
  description: 'a Telegram integer id, or the platform string id',
});

/**
 * A Telegram number names the chat it was given to. Text that names no chat that way is a platform
 * id (telegram-api.md: "the platform's own string ids still work"): the application's ids are
 * digits too, and a bot's are beyond 2^53; later steps look it up. Numbers arrive as text as well
 * (IdParam), so a number that names no chat is looked up as a platform id before it is not found.
 */
export async function resolveChat(s: Services, id: number | string): Promise<ChatRef> {
  const n = numberOf(id);
  if (typeof n === 'number') {
    const found =
      n < 0
        ? { type: 'group' as const, id: (await s.telegramReads.groupIdByNumber.first([n]))?.group_id }
        : { type: 'private' as const, id: (await s.telegramReads.userIdByNumber.first([n]))?.user_id };
    if (found.id !== undefined) return { type: found.type, id: found.id };
  }
  return s.messaging.chat(String(id), undefined);
}

/** As resolveChat, for a user. */
export async function resolveUser(s: Services, id: number | string): Promise<string> {
  const n = numberOf(id);
  const userId = typeof n === 'number' ? (await s.telegramReads.userIdByNumber.first([n]))?.user_id : undefined;
  return userId ?? String(id);
}
