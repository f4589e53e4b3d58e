// As in Telegram, a webhook receiver may answer an Update with a method call as its 2xx body
// (`{"method":"sendMessage", ...}`, or the same as a form or multipart/form-data, which aiogram
// answers): it is performed by the bot through the same method code as a call to
// /telegram/bot<token>/<method>. What it returns, or why it failed, goes nowhere.
import { isUtf8 } from 'node:buffer';
import { formBody } from '../../http/body.js';
import type { Services } from '../../services.js';
import { findBot } from '../bots/index.js';
import { multipartFields } from './multipart.js';
import { isRecord, jsonParam, mergeParams } from './params.js';
import { methodNamed } from './registry.js';
import * as repo from './repo.js';

/** The answer's fields, read as its Content-Type says, by the parsers requests are read with. */
async function answerFields(body: Buffer, contentType: string | undefined): Promise<unknown> {
  const type = (contentType?.split(';')[0] ?? '').trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') return formBody(body);
  if (type === 'multipart/form-data' && contentType !== undefined) return multipartFields(body, contentType);
  // JSON, and any other type as before: receivers that send JSON without saying so. Held to what a
  // call's JSON body is (body.ts, app.ts): UTF-8, no __proto__ or constructor.prototype key, at most
  // MAX_DEPTH levels; jsonParam throws otherwise, and the answer is dropped.
  return isUtf8(body) ? jsonParam('answer', body.toString()) : undefined;
}

/** Runs the method call in a webhook answer's body, if it is one; never throws. */
export const webhookAnswers =
  (s: Services) =>
  async (
    botUserId: string,
    { body, contentType }: { body: Buffer; contentType: string | undefined },
  ): Promise<void> => {
    try {
      const answer = await answerFields(body, contentType);
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
      // Not a body of its type, or the call failed: Telegram drops such answers silently too.
    }
  };
