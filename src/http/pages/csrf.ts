// Page sessions and CSRF. The session is the operator's `op_session` cookie. A random key lives
// in the `op_csrf` cookie (HttpOnly, SameSite=Strict, scoped to the page's path) and every form
// carries HMAC-SHA256(key, session cookie value). A cross-site form cannot read or send the key;
// someone able to plant a cookie still cannot compute the token without the victim's session.
// No server-side state or shared secret is needed, so it works across instances.
import { createHmac } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { safeEqual } from '../../lib/crypto.js';
import { newSecretToken } from '../../lib/ids.js';
import { SESSION_COOKIE } from '../../modules/sessions/service.js';

export const CSRF_COOKIE = 'op_csrf';
/** Form field of the CSRF token. */
export const CSRF_FIELD = 'csrf';
/** A key as newSecretToken makes them: 32 random bytes, base64url. */
const CSRF_KEY = /^[\w-]{43}$/;

export const csrfToken = (key: string, session: string): string =>
  createHmac('sha256', key).update(session).digest('base64url');

export function csrfValid(key: string | undefined, session: string, given: string | undefined): boolean {
  return key !== undefined && CSRF_KEY.test(key) && given !== undefined && safeEqual(csrfToken(key, session), given);
}

/**
 * The two cookies pages read. Both hold base64url text, so no decoding is needed; the first of a
 * repeated name wins, as in browsers' own ordering (most specific path first).
 */
export function cookiesOf(request: FastifyRequest): { session?: string; csrfKey?: string } {
  const found = new Map<string, string>();
  for (const pair of (request.headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at < 0) continue;
    const name = pair.slice(0, at).trim();
    if (!found.has(name)) found.set(name, pair.slice(at + 1).trim());
  }
  const session = found.get(SESSION_COOKIE);
  const csrfKey = found.get(CSRF_COOKIE);
  return { ...(session !== undefined ? { session } : {}), ...(csrfKey !== undefined ? { csrfKey } : {}) };
}

/** The CSRF key to use (the one set, so forms open in other tabs stay valid) and its cookie for `path`. */
export function csrfKeyCookie(
  given: string | undefined,
  path: string,
  secure: boolean,
): { key: string; cookie: string } {
  const key = given !== undefined && CSRF_KEY.test(given) ? given : newSecretToken();
  return { key, cookie: `${CSRF_COOKIE}=${key}; Path=${path}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}` };
}
