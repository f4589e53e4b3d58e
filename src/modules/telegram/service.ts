// Who calls the Telegram surface: the bot a path's token `bot<number>:<App Key>` names, which must
// be the App Key's bot under its own Telegram number.
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/connect.js';
import { AppError, Errors } from '../../errors.js';
import type { Credential, CredentialStore } from '../auth/index.js';
import * as repo from './repo.js';

const TOKEN = /^bot(\d{1,16}):(.{1,128})$/;

/** The bot a call is made as: its App Key's credential, its platform id and its Telegram number. */
export interface TelegramCaller {
  credential: Credential;
  botId: string;
  botNumber: number;
}

export class TelegramAuth {
  /** Bot numbers never change: a bot's is read once. */
  private readonly numbers = new LRUCache<string, number>({ max: 10_000 });

  constructor(
    private readonly credentials: Pick<CredentialStore, 'byApiKey'>,
    private readonly db: Db,
  ) {}

  /** The bot `token` names; refused (apiKeyUnavailable) unless its App Key is a bot's and the number that bot's. */
  async authenticate(token: string): Promise<TelegramCaller> {
    const m = TOKEN.exec(token);
    const credential = m === null ? undefined : await this.credentials.byApiKey(m[2] ?? '');
    const botId = credential?.botUserId ?? null;
    if (m === null || credential === undefined || botId === null) throw new AppError(Errors.apiKeyUnavailable);
    let botNumber = this.numbers.get(botId);
    if (botNumber === undefined) {
      botNumber = await repo.telegramIdOf(this.db.k, botId);
      if (botNumber !== undefined) this.numbers.set(botId, botNumber);
    }
    if (botNumber === undefined || String(botNumber) !== m[1]) throw new AppError(Errors.apiKeyUnavailable);
    return { credential, botId, botNumber };
  }
}
