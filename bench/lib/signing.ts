// Signed-generation headers for every request: a fresh nonce and timestamp each time and
// signature = hex SHA1(App Secret + nonce + timestamp), as a client computes them.
//
// The load generator shares this 2-core machine with the server, so whatever it spends per request
// is taken from the server: a signed request built during the run cost it about twice a bare one.
// The headers of a run are therefore signed before it starts (lib/runner.ts calls `requests` outside
// the timing): each set is still used once, with its own nonce and a timestamp taken just before
// the run (well within the 300 s window). Past the prepared sets, headers are signed on the fly.
import { createHash, randomBytes } from 'node:crypto';
import type autocannon from 'autocannon';
import type { LoadRun } from './types.js';

export interface AppCredentials {
  app_id: string;
  api_key: string;
  app_secret: string;
}

/** Above any signed target's req/s on this machine, so a run never outlasts its prepared headers. */
const PREPARED_PER_S = 100_000;

// Unique per run and per request: a random run tag and a counter (letters and digits, <= 32).
const runTag = randomBytes(6).toString('hex');
let counter = 0;

export function signedHeaders(c: AppCredentials): Record<string, string> {
  const nonce = `${runTag}${(counter++).toString(36)}`;
  const timestamp = String(Date.now());
  return {
    app_id: c.app_id,
    'x-api-key': c.api_key,
    nonce,
    timestamp,
    signature: createHash('sha1')
      .update(c.app_secret + nonce + timestamp)
      .digest('hex'),
  };
}

/** Header sets for one run, signed now; each call hands out the next (signed then, once they run out). */
function preparedHeaders(c: AppCredentials, run: LoadRun): () => Record<string, string> {
  const ready = Array.from({ length: Math.ceil(run.durationS * PREPARED_PER_S) }, () => signedHeaders(c));
  let next = 0;
  return () => ready[next++] ?? signedHeaders(c);
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
