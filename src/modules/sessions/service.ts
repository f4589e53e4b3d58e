// Operator-issued sessions: the application signs a user in to the authorize page and the
// developer site by setting this cookie in its in-app browser.
import type { Db } from '../../db/connect.js';
import type { UnitOfWork } from '../../db/work.js';
import { AppError, Errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { sha256Hex } from '../../lib/crypto.js';
import { newSecretToken } from '../../lib/ids.js';
import { usersExist } from '../users/index.js';
import * as repo from './repo.js';

export const SESSION_COOKIE = 'op_session';
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;

export class SessionsService {
  constructor(
    private readonly db: Db,
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async create(userId: string): Promise<{ cookie: string; expires_at: string }> {
    const token = newSecretToken();
    const expiresAt = await this.work.run(async ({ tx, now }) => {
      if (!(await usersExist(tx, [userId]))) throw new AppError(Errors.unknownUser);
      const expires = now + SESSION_TTL_MS;
      await repo.insertSession(tx, { sessionHash: sha256Hex(token), userId, expiresAt: expires, now });
      return expires;
    });
    return { cookie: `${SESSION_COOKIE}=${token}`, expires_at: new Date(expiresAt).toISOString() };
  }

  /** Ends the session of a cookie value (signing out): the cookie no longer signs anyone in. */
  async end(token: string): Promise<void> {
    await this.work.run(({ tx }) => repo.deleteSession(tx, sha256Hex(token)));
  }

  /** The signed-in user of a session cookie value, if the session is live. */
  async userOf(token: string | undefined): Promise<string | undefined> {
    if (token === undefined || token === '') return undefined;
    const row = await repo.findSession(this.db.k, sha256Hex(token));
    return row !== undefined && row.expires_at > this.clock.now() ? row.user_id : undefined;
  }
}
