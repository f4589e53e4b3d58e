// Telegram's chat_id, user_id and message_id parameters: Telegram numbers or the platform's own
// string ids (telegram-api.md "Numeric ids"), resolved to the core's references.
import { Type } from 'typebox';
import type { Services } from '../../services.js';
import { type ChatRef, numberOf } from '../messaging/index.js';
import { badRequest, CHAT_NOT_FOUND } from './errors.js';

export const IdParam = Type.Union([Type.Integer(), Type.String({ minLength: 1, maxLength: 128 })], {
  description: 'a Telegram integer id, or the platform string id',
});

export async function resolveChat(s: Services, id: number | string): Promise<ChatRef> {
  const n = numberOf(id);
  if (n === undefined) return s.messaging.chat(String(id), undefined);
  if (n === null) throw badRequest(CHAT_NOT_FOUND);
  const found =
    n < 0
      ? { type: 'group' as const, id: (await s.telegramReads.groupIdByNumber.first([n]))?.group_id }
      : { type: 'private' as const, id: (await s.telegramReads.userIdByNumber.first([n]))?.user_id };
  if (found.id === undefined) throw badRequest(CHAT_NOT_FOUND);
  return { type: found.type, id: found.id };
}

export async function resolveUser(s: Services, id: number | string): Promise<string> {
  const n = numberOf(id);
  if (n === undefined) return String(id);
  const userId = n === null ? undefined : (await s.telegramReads.userIdByNumber.first([n]))?.user_id;
  if (userId === undefined) throw badRequest('user not found');
  return userId;
}
