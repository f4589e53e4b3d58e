// Page sessions and CSRF. The session is the operator's `op_session` cookie. Every form carries a
// token that is an HMAC of the session with a server key (derived from the store's secret key), so
// every page load of one session gets the same token: any number of open tabs can each submit
// their own form (decisions.md section 7), while another session's token, or none, is refused.
// Beside it the `op_csrf` cookie (HttpOnly, SameSite=Strict, scoped to the page's path), derived
// the same way, must come back with the form: a cross-site post does not carry it. No server-side
// state, and every instance shares the key, so it works across instances.
import { createHmac, hkdfSync } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { safeEqual } from '../../lib/crypto.js';
import { SESSION_COOKIE } from '../../modules/sessions/index.js';

export const CSRF_COOKIE = 'op_csrf';
/** Form field of the CSRF token. */
export const CSRF_FIELD = 'csrf';

/**
 * The two cookies pages read. Both hold base64url text, so no decoding is needed; the first of a
 * repeated name wins, as in browsers' own ordering (most specific path first).
 */
export function cookiesOf(request: FastifyRequest): { session?: string; csrf?: string } {
  const found = cookieJar(request);
  const session = found.get(SESSION_COOKIE);
  const csrf = found.get(CSRF_COOKIE);
  return { ...(session !== undefined ? { session } : {}), ...(csrf !== undefined ? { csrf } : {}) };
}

/** The request's cookies by name (the first of a repeated name); values as sent. */
export function cookieJar(request: FastifyRequest): Map<string, string> {
  const found = new Map<string, string>();
  for (const pair of (request.headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at < 0) continue;
    const name = pair.slice(0, at).trim();
    if (!found.has(name)) found.set(name, pair.slice(at + 1).trim());
  }
  return found;
}

/**
 * CSRF tokens and cookies of the pages under a path (`/oauth`, the developer site); the path is
 * part of the HMAC, so one site's token is not accepted by the other.
 */
export class PageCsrf {
  private readonly key: Buffer;

  constructor(
    secret: Buffer,
    /** Cookies get `Secure` when the site is served over https. */
    private readonly secure: boolean,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'open-platform', 'page-csrf', 32));
  }

  /** 43 base64url characters. */
  private mac(what: 'token' | 'cookie', path: string, session: string): string {
    return createHmac('sha256', this.key).update(`${what}\n${path}\n${session}`).digest('base64url');
  }

  /** The session's form token for the pages under `path`, and the cookie to set with the page. */
  issue(path: string, session: string): { token: string; cookie: string } {
    const value = this.mac('cookie', path, session);
    const attributes = `Path=${path}; HttpOnly; SameSite=Strict${this.secure ? '; Secure' : ''}`;
    return { token: this.mac('token', path, session), cookie: `${CSRF_COOKIE}=${value}; ${attributes}` };
  }

  /** Whether a form posted under `path` in `session` carries its token and came with its cookie. */
  accepts(path: string, session: string, cookie: string | undefined, given: string | undefined): boolean {
    return (
      cookie !== undefined &&
      given !== undefined &&
      safeEqual(this.mac('cookie', path, session), cookie) &&
      safeEqual(this.mac('token', path, session), given)
    );
  }
}
