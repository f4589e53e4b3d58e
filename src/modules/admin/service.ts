// The operator's bearer token: ADMIN_TOKEN when set; otherwise generated on first start, shown
// once, and kept (as a hash) for later starts.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.js';
import { credentialsOf } from '../../http/authorization.js';
import { safeEqual, sha256Hex } from '../../lib/crypto.js';
import type { GuessLimiter } from '../../lib/guess-limit.js';
import { newAdminToken } from '../../lib/ids.js';
import * as repo from './repo.js';

export interface AdminToken {
  hash: string;
  /** Set only on the start that generated the token: the one time it can be shown. */
  generated?: string;
}

export async function ensureAdminToken(db: Kysely<DB>, configured: string | undefined): Promise<AdminToken> {
  if (configured !== undefined) return { hash: sha256Hex(configured) };
  const stored = await repo.storedTokenHash(db);
  if (stored !== undefined) return { hash: stored };
  const token = newAdminToken();
  const hash = sha256Hex(token);
  // Another instance may have won the race to generate; the stored one is the token.
  const winner = await repo.keepTokenHash(db, hash);
  return winner === hash ? { hash, generated: token } : { hash: winner };
}

/** Whether `header` is `Bearer <token>` (read as every Authorization header is) with the operator's token. */
export function bearerMatches(header: string | undefined, hash: string): boolean {
  const words = credentialsOf(header, 'bearer');
  return words?.length === 1 && words[0] !== undefined && safeEqual(sha256Hex(words[0]), hash);
}

/**
 * Whether a console request's bearer token is the operator's. A wrong one counts as a guess from
 * its address; while the address is locked out this throws TooManyGuesses without comparing. No
 * Authorization header, or one of another scheme, is no guess: it is simply not the operator (a
 * browser behind a basic-auth proxy sends `Basic ...` on every request).
 */
export async function operatorBearer(
  guesses: GuessLimiter,
  header: string | undefined,
  address: string,
  hash: string,
): Promise<boolean> {
  if (credentialsOf(header, 'bearer') === undefined) return false;
  return (await guesses.attempt(address, () => Promise.resolve(bearerMatches(header, hash) || undefined))) === true;
}

/** Who the audit trail records an action under when the operator API's bearer token made it. */
export const API_ACTOR = 'operator API (bearer token)';
