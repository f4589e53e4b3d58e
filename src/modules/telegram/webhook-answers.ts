// As in Telegram, a webhook receiver may answer an Update with a method call as its 2xx body
// (`{"method":"sendMessage", ...}`): it is performed by the bot through the same method code as a
// call to /telegram/bot<token>/<method>. What it returns, or why it failed, goes nowhere.
import type { Services } from '../../services.js';
import { findBot } from '../bots/index.js';
import { isRecord, mergeParams } from './params.js';
import { methodNamed } from './registry.js';
import * as repo from './repo.js';

/** Runs the method call in a webhook answer's body, if it is one; never throws. */
export const webhookAnswers =
  (s: Services) =>
  async (botUserId: string, body: string): Promise<void> => {
    try {
      const answer: unknown = JSON.parse(body);
      if (!isRecord(answer) || typeof answer.method !== 'string') return;
      const { method: name, ...params } = answer;
      const m = methodNamed(name);
      const bot = await findBot(s.db.k, botUserId);
      const botNumber = await repo.telegramIdOf(s.db.k, botUserId);
      if (m === undefined || bot === undefined || botNumber === undefined) return;
      const credential = await s.credentials.byApiKey((await s.apps.revealCredentials(bot.app_id)).api_key);
      if (credential === undefined) return;
      await m.call(
        { s, credential, botId: botUserId, botNumber, idempotencyKey: () => undefined, replayed: () => undefined },
        mergeParams([params]),
      );
    } catch {
      // Not JSON, or the call failed: Telegram drops such answers silently too.
    }
  };
