// Signed-generation headers for every request: a fresh nonce and timestamp each time and
// signature = hex SHA1(App Secret + nonce + timestamp), as a client computes them.
//
// The load generator shares this 2-core machine with the server, so whatever it spends per request
// is taken from the server: a signed request built during the run cost it about twice a bare one.
// The headers of a run are therefore signed before it starts (lib/runner.ts calls `requests` outside
// the timing): each set is still used once, with its own nonce, and the timestamp taken just before
// the run. Only the nonce and the digest are kept per request (the pool lives through the run, and
// the generator's garbage collector walks it), at most a million of them (about 150 MB; 14 s of a
// run at the fastest rate seen here, well inside the 300 s window); past them, headers are signed
// on the fly.
import { createHash, randomBytes } from 'node:crypto';
import type autocannon from 'autocannon';
import type { LoadRun } from './types.js';

export interface AppCredentials {
  app_id: string;
  api_key: string;
  app_secret: string;
}

/** Above any signed target's req/s on this machine (about 50,000 at most), so a run rarely outlasts its prepared headers. */
const PREPARED_PER_S = 70_000;
const PREPARED_MAX = 1_000_000;

// Unique per run and per request: a random run tag and a counter (letters and digits, <= 32).
const runTag = randomBytes(6).toString('hex');
let counter = 0;

const nextNonce = (): string => `${runTag}${(counter++).toString(36)}`;
const digest = (c: AppCredentials, nonce: string, timestamp: string): string =>
  createHash('sha1')
    .update(c.app_secret + nonce + timestamp)
    .digest('hex');
const headersOf = (c: AppCredentials, nonce: string, timestamp: string, signature: string) => ({
  app_id: c.app_id,
  'x-api-key': c.api_key,
  nonce,
  timestamp,
  signature,
});

export function signedHeaders(c: AppCredentials): Record<string, string> {
  const nonce = nextNonce();
  const timestamp = String(Date.now());
  return headersOf(c, nonce, timestamp, digest(c, nonce, timestamp));
}

/** Header sets for one run, signed now; each call hands out the next (signed then, once they run out). */
function preparedHeaders(c: AppCredentials, run: LoadRun): () => Record<string, string> {
  const timestamp = String(Date.now());
  const nonces = Array.from({ length: Math.min(Math.ceil(run.durationS * PREPARED_PER_S), PREPARED_MAX) }, nextNonce);
  const signatures = nonces.map((nonce) => digest(c, nonce, timestamp));
  let next = 0;
  return () => {
    const i = next++;
    const nonce = nonces[i];
    const signature = signatures[i];
    return nonce === undefined || signature === undefined
      ? signedHeaders(c)
      : headersOf(c, nonce, timestamp, signature);
  };
}

/** A GET whose path (from `path()`) and signature headers are new for each request. */
export function signedGet(c: AppCredentials, run: LoadRun, path: () => string): autocannon.Request {
  const headers = preparedHeaders(c, run);
  return {
    method: 'GET',
    setupRequest: (request) => {
      request.path = path();
      request.headers = { ...request.headers, ...headers() };
      return request;
    },
  };
}

/** A JSON POST to a fixed path, its body and `headers()` made anew for each request. */
export function jsonPost(path: string, headers: () => Record<string, string>, body: () => unknown): autocannon.Request {
  return {
    method: 'POST',
    path,
    setupRequest: (request) => {
      request.body = JSON.stringify(body());
      request.headers = { ...request.headers, ...headers(), 'content-type': 'application/json' };
      return request;
    },
  };
}

/** A JSON POST to a fixed path, with signature headers new for each request. */
export function signedPost(c: AppCredentials, run: LoadRun, path: string, body: () => unknown): autocannon.Request {
  return jsonPost(path, preparedHeaders(c, run), body);
}
