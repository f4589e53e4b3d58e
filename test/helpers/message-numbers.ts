// The Telegram number the store gave a message (telegram-api.md "Numeric ids"), for tests that
// expect it in a native Message: users' numbers are assigned by the store, not by the event.
import type { Services } from '../../src/services.js';
import { messageNumbers } from '../../src/modules/telegram/repo.js';

export async function messageNumber(services: Services, messageId: string): Promise<number> {
  const n = (await messageNumbers(services.db.k, [messageId])).get(messageId);
  if (n === undefined) throw new Error(`no message ${messageId}`);
  return n;
}
