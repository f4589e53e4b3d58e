// The authorize page driven as a browser would: open it signed in, submit its form with Allow,
// follow nothing; and PKCE pairs as a client makes them.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { App } from '../../src/http/types.js';

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescape = (s: string): string => s.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] ?? e);

/** The page's hidden form fields. */
export const hiddenFields = (page: string): Record<string, string> =>
  Object.fromEntries(
    [...page.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)" \/>/g)].map((m) => [
      unescape(m[1] ?? ''),
      unescape(m[2] ?? ''),
    ]),
  );

/** A verifier of 43 unreserved characters and its S256 challenge (RFC 7636 section 4). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** GET /oauth/authorize?params as `cookie`'s user: status and body. */
export async function openAuthorize(app: App, params: Record<string, string>, cookie: string) {
  const res = await app.inject({
    method: 'GET',
    url: `/oauth/authorize?${new URLSearchParams(params).toString()}`,
    headers: { cookie },
  });
  return { status: res.statusCode, body: res.body, setCookie: res.headers['set-cookie'] };
}

/** Opens the page and presses Allow: the redirect's Location. */
export async function allow(app: App, params: Record<string, string>, cookie: string): Promise<URL> {
  const page = await openAuthorize(app, params, cookie);
  assert.equal(page.status, 200, page.body);
  const csrf = String(page.setCookie).split(';')[0] ?? '';
  const res = await app.inject({
    method: 'POST',
    url: '/oauth/authorize',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${cookie}; ${csrf}` },
    payload: new URLSearchParams({ ...hiddenFields(page.body), action: 'allow' }).toString(),
  });
  assert.equal(res.statusCode, 302, res.body);
  return new URL(String(res.headers.location));
}
