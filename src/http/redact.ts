// Secrets arrive as query parameters, form and JSON fields and headers (App Secret, tokens, codes,
// keys, cookies). Logs get their values masked, whatever surface carried them and however the name
// was spelled: names are compared after percent-decoding, in lower case, with '-' as '_', because
// the server decodes `app%5Fsecret` to `app_secret` and accepts it.

const SECRET_NAMES = new Set([
  'access_token',
  'api_key',
  'app_secret',
  'authorization',
  'client_secret',
  'code',
  // PKCE's proof (RFC 7636): with the code it could be exchanged while the code is unspent.
  'code_verifier',
  'cookie',
  'id_token',
  'password',
  'proxy_authorization',
  'refresh_token',
  'secret',
  'secret_token',
  'set_cookie',
  'signature',
  'token',
  'webhook_key',
  'x_api_key',
  'x_telegram_bot_api_secret_token',
]);

export const REDACTED = '[redacted]';

const decoded = (name: string): string => {
  const spaced = name.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    // A malformed escape: decode what can be decoded, so `%ZZapp%5Fsecret` is still recognised.
    return spaced.replace(/%[0-9a-f]{2}/gi, (escape) => String.fromCharCode(Number.parseInt(escape.slice(1), 16)));
  }
};

/** Whether a parameter, field or header of this name carries a secret. */
export const isSecretName = (name: string): boolean =>
  SECRET_NAMES.has(decoded(name).trim().toLowerCase().replace(/-/g, '_'));

/** `a=1&app%5Fsecret=x` -> `a=1&app%5Fsecret=[redacted]`: a query string or a form body. */
export function redactedParams(params: string): string {
  return params
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq >= 0 && isSecretName(pair.slice(0, eq)) ? `${pair.slice(0, eq + 1)}${REDACTED}` : pair;
    })
    .join('&');
}

/**
 * Paths that carry a secret: the demo's sign-in link, and a Telegram bot token
 * (`/telegram/bot<id>:<App Key>/<method>`: the bot id is kept, to tell bots apart in the log).
 */
const SECRET_PATHS = [/^(\/demo\/sign-in\/)[^?#]*/, /^(\/telegram\/(?:bot\d+:|bot)?)[^/?#]*/];

export function redactedUrl(url: string): string {
  const query = url.indexOf('?');
  const path = SECRET_PATHS.reduce(
    (p, secret) => p.replace(secret, `$1${REDACTED}`),
    query < 0 ? url : url.slice(0, query),
  );
  if (query < 0) return path;
  const hash = url.indexOf('#', query);
  const params = hash < 0 ? url.slice(query + 1) : url.slice(query + 1, hash);
  return `${path}?${redactedParams(params)}${hash < 0 ? '' : url.slice(hash)}`;
}

/** A record of fields, not an instance of a class (parsed query strings have a prototype-less prototype). */
const isPlain = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null || Object.getPrototypeOf(proto) === null;
};

/** Logged structures deeper than this are cut off (a log record never needs them, and a walk stays cheap). */
const MAX_DEPTH = 8;

/**
 * A copy of a log record's fields with secret values masked: fields named like a secret at any
 * depth, URLs, and form bodies logged as text. Only plain objects and arrays are walked; other
 * objects (a request, an error) go to their serializers.
 */
export function redactedFields(value: unknown, key = '', depth = 0): unknown {
  if (key !== '' && isSecretName(key)) return REDACTED;
  if (typeof value === 'string') {
    if (key === 'url') return redactedUrl(value);
    return key === 'body' || key === 'query' || key === 'payload' ? redactedParams(value) : value;
  }
  if (!Array.isArray(value) && !isPlain(value)) return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (Array.isArray(value)) return value.map((item) => redactedFields(item, '', depth + 1));
  return redactedRecord(value, depth);
}

/** A log record (or a record inside one) with its fields masked as redactedFields does. */
export function redactedRecord(record: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) copy[k] = redactedFields(v, k, depth + 1);
  return copy;
}

interface LoggedRequest {
  method: string;
  url: string;
  headers: Record<string, unknown>;
}

/**
 * pino options that mask secrets in every record: pass them (spread) with the level and stream
 * wherever the app's logger is configured.
 */
export const redactingLogOptions = {
  formatters: { log: (record: Record<string, unknown>) => redactedRecord(record) },
  serializers: {
    req: (req: LoggedRequest) => ({
      method: req.method,
      url: redactedUrl(req.url),
      headers: redactedFields(req.headers),
    }),
  },
};
