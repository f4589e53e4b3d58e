// Signed-generation headers for every request: a fresh nonce and timestamp each time and
// signature = hex SHA1(App Secret + nonce + timestamp), as a client computes them.
import { createHash, randomBytes } from 'node:crypto';
import type autocannon from 'autocannon';

export interface AppCredentials {
  app_id: string;
  api_key: string;
  app_secret: string;
}

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

/** A GET whose path (from `path()`) and signature headers are made anew for each request. */
export function signedGet(c: AppCredentials, path: () => string): autocannon.Request {
  return {
    method: 'GET',
    setupRequest: (request) => {
      request.path = path();
      request.headers = { ...request.headers, ...signedHeaders(c) };
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

/** A JSON POST to a fixed path, signed anew for each request. */
export function signedPost(c: AppCredentials, path: string, body: () => unknown): autocannon.Request {
  return jsonPost(path, () => signedHeaders(c), body);
}
