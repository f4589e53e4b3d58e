// A browser reduced to its cookies and the CSRF token of the last page, for inject tests of the
// server-rendered pages.
import type { App } from '../../src/http/types.js';

export interface Page {
  status: number;
  body: string;
  headers: Record<string, unknown>;
}

export interface PageClient {
  get(url: string, headers?: Record<string, string>): Promise<Page>;
  post(
    url: string,
    form: Record<string, string>,
    options?: { csrf?: string; headers?: Record<string, string> },
  ): Promise<Page>;
  readonly csrf: string;
}

/**
 * Starts with the given cookies; keeps every cookie a page sets and the last form token seen.
 * `remoteAddress`: the client's address as the server sees it (request.ip).
 */
export function pageClient(app: App, cookie: string, remoteAddress?: string): PageClient {
  const from = remoteAddress === undefined ? {} : { remoteAddress };
  const jar = new Map(cookie.split('; ').map((c) => [c.slice(0, c.indexOf('=')), c]));
  let csrf = '';
  const remember = (r: Awaited<ReturnType<App['inject']>>): Page => {
    const set = r.headers['set-cookie'];
    for (const line of set === undefined ? [] : Array.isArray(set) ? set : [set]) {
      const pair = line.split(';')[0] ?? '';
      jar.set(pair.slice(0, pair.indexOf('=')), pair);
    }
    csrf = /name="csrf" value="([^"]+)"/.exec(r.body)?.[1] ?? csrf;
    return { status: r.statusCode, body: r.body, headers: r.headers };
  };
  const cookies = () => [...jar.values()].join('; ');
  return {
    get: async (url, headers = {}) =>
      remember(await app.inject({ method: 'GET', url, headers: { cookie: cookies(), ...headers }, ...from })),
    post: async (url, form, options = {}) =>
      remember(
        await app.inject({
          method: 'POST',
          url,
          headers: { cookie: cookies(), 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
          payload: new URLSearchParams({ csrf: options.csrf ?? csrf, ...form }).toString(),
          ...from,
        }),
      ),
    get csrf() {
      return csrf;
    },
  };
}
