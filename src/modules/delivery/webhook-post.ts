// One webhook delivery attempt over HTTP (decisions.md section 2): the request signed in the
// Standard Webhooks form, sent to an address the URL policy (webhook-url.ts) vetted at connect time.
import { createHmac } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { TELEGRAM_BODY_LIMIT } from '../../http/body.js';
import { errorCode } from '../../lib/error-code.js';
import {
  guardedLookup,
  NOT_RESOLVED,
  precheck,
  PRIVATE_ADDRESS,
  RESOLVE_TOO_SLOW,
  webhookDns,
  type WebhookDns,
} from './webhook-url.js';

export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * Response bytes read before the socket is dropped: a body kept (a Telegram-format answer, which
 * may be a method call) up to what a call to the Telegram surface may carry; one discarded, 64 KiB.
 * At most MAX_IN_FLIGHT (256) answers are read at once, so kept bodies stay under 64 MiB.
 */
const responseCap = (keepBody: boolean | undefined): number => (keepBody === true ? TELEGRAM_BODY_LIMIT : 64 * 1024);

/** Headers of one callback: X-API-KEY, content-type and the Standard Webhooks trio. */
export function webhookHeaders(id: string, timestampS: number, body: string, key: string): Record<string, string> {
  const timestamp = String(timestampS);
  const signature = createHmac('sha256', Buffer.from(key, 'utf8'))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64');
  return {
    'Content-Type': 'application/json',
    'X-API-KEY': key,
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${signature}`,
  };
}

export interface Attempt {
  ok: boolean;
  status: number | null;
  error: string | null;
  /** from a Retry-After header (seconds or HTTP date), in ms */
  retryAfterMs: number | null;
  durationMs: number;
  /**
   * The response body, when the caller asked for it and it arrived whole within TELEGRAM_BODY_LIMIT
   * (256 KiB): a cut one would be performed as a different method call.
   */
  body?: Buffer;
  /** The response's Content-Type, with the body: how an answer in it is to be read. */
  contentType?: string | undefined;
  /** Cut short by the caller's signal (the platform stopping), not ended by the receiver. */
  abandoned?: true;
}

export const ABANDONED = 'no answer before the platform stopped';

/**
 * Longest Retry-After read, whatever the header says: 20 nines once made next_attempt_at overflow
 * PostgreSQL's bigint, so the failure was never recorded. The dispatcher caps it further, at the
 * backoff's cap (WEBHOOK_RETRY_MAX_MS, itself at most a day).
 */
const RETRY_AFTER_MAX_MS = 24 * 3600 * 1000;

/** Retry-After as delay-seconds or an HTTP date, in ms from `now` (at most a day); null when absent or unparsable. */
function retryAfterMs(header: string | undefined, now: number): number | null {
  if (header === undefined) return null;
  const value = header.trim();
  // Number() of any digit string is finite or Infinity, so the ceiling applies to either.
  if (/^\d+$/.test(value)) return Math.min(Number(value) * 1000, RETRY_AFTER_MAX_MS);
  // Date.parse accepts bare numbers like "7.5"; an HTTP date always has a weekday or month name.
  if (!/[A-Za-z]/.test(value)) return null;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.min(Math.max(0, date - now), RETRY_AFTER_MAX_MS);
}

/** A short description of a transport error, safe to show (codes only, never messages). */
function describeError(err: unknown): string {
  const code = errorCode(err);
  switch (code) {
    case 'EDISALLOWEDADDRESS':
      return PRIVATE_ADDRESS;
    case 'EWEBHOOKDNSTIMEOUT':
      return RESOLVE_TOO_SLOW;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NODATA':
    case 'EAI_NONAME':
      return NOT_RESOLVED;
    case 'ERR_INVALID_CHAR':
      return 'key or id is not a valid header value';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case undefined:
      return 'connection failed';
    default:
      // TLS failures (CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID, ...) are told apart by code.
      return /^[A-Z0-9_]{1,64}$/.test(code) ? `connection failed (${code})` : 'connection failed';
  }
}

/**
 * One delivery attempt; never throws. Extra `headers` go with the signed ones, and `keepBody` returns
 * the response body if it arrived whole within the cap. Addresses are vetted again at connect time (guardedLookup), so a name
 * that resolves elsewhere after the URL check (DNS rebinding) is refused unless allowInsecure. The
 * timeout (WEBHOOK_TIMEOUT_MS, `timeoutMs` in tests) covers connect and response; redirects are not
 * followed (a 3xx is a failure); `now` stamps the webhook-timestamp header.
 */
export async function postWebhook(input: {
  url: string;
  key: string;
  id: string;
  body: string;
  allowInsecure: boolean;
  now: number;
  timeoutMs?: number;
  /** Sent besides the signed ones (the Telegram format's secret token header). */
  headers?: Record<string, string>;
  /** Keep the response body and its type (Telegram-format receivers may answer with a method call). */
  keepBody?: boolean;
  /** How the host name is resolved (tests); the c-ares resolver and WEBHOOK_DNS_LIMIT_MS by default. */
  dns?: WebhookDns;
  /** Aborting it ends the attempt at once, as abandoned (a shutdown must not wait for the timeout). */
  signal?: AbortSignal;
}): Promise<Attempt> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failure = (error: string): Attempt => ({
    ok: false,
    status: null,
    error,
    retryAfterMs: null,
    durationMs: elapsed(),
  });

  const abandoned = (): Attempt => ({ ...failure(ABANDONED), abandoned: true });

  try {
    if (input.signal?.aborted === true) return abandoned();
    const pre = precheck(input.url, input.allowInsecure);
    if ('reason' in pre) return failure(pre.reason);
    const timeoutMs = input.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    const headers = {
      ...input.headers,
      ...webhookHeaders(input.id, Math.floor(input.now / 1000), input.body, input.key),
      'Content-Length': String(Buffer.byteLength(input.body, 'utf8')),
    };
    const send = pre.url.protocol === 'https:' ? httpsRequest : httpRequest;

    return await new Promise<Attempt>((resolve) => {
      const req = send(pre.url, {
        method: 'POST',
        headers,
        agent: false,
        ...(input.allowInsecure ? {} : { lookup: guardedLookup(input.dns ?? webhookDns()) }),
      });
      let settled = false;
      let response: IncomingMessage | undefined;
      const chunks: Buffer[] = [];

      // `whole`: the body ended as the response framed it (res.complete) and was not dropped at the cap.
      const outcome = (res: IncomingMessage, whole = false): Attempt => {
        const status = res.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        const redirect = status >= 300 && status < 400;
        return {
          ok,
          status,
          error: ok ? null : redirect ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`,
          retryAfterMs: retryAfterMs(res.headers['retry-after'], input.now),
          durationMs: elapsed(),
          ...(input.keepBody === true && whole
            ? { body: Buffer.concat(chunks), contentType: res.headers['content-type'] }
            : {}),
        };
      };
      const settle = (attempt: Attempt) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        input.signal?.removeEventListener('abort', abandon);
        // Nothing more is wanted from this connection (agent: false, so it is never pooled).
        req.destroy();
        resolve(attempt);
      };

      // One deadline for connect, request, status and the capped body read.
      const timer = setTimeout(() => {
        // Once the status is in, the outcome is known; only the body was slow.
        settle(response ? outcome(response) : failure(`timeout after ${timeoutMs / 1000} s`));
      }, timeoutMs);

      // A status already received is the receiver's answer (a slow body after it still counts).
      const abandon = () => {
        settle(response ? outcome(response) : abandoned());
      };
      input.signal?.addEventListener('abort', abandon, { once: true });

      req.on('error', (err) => {
        settle(response ? outcome(response) : failure(describeError(err)));
      });
      req.on('response', (res) => {
        response = res;
        const cap = responseCap(input.keepBody);
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // Checked before keeping: a body over the cap is dropped, as a direct call that large gets 413.
          if (read > cap) settle(outcome(res));
          else if (input.keepBody === true) chunks.push(chunk);
        });
        // A body cut short (dropped, stalled, abandoned) does not change what the status said, but is not kept.
        res.on('end', () => {
          settle(outcome(res, res.complete));
        });
        res.on('error', () => {
          settle(outcome(res));
        });
        res.on('close', () => {
          settle(outcome(res));
        });
      });
      req.end(input.body);
    });
  } catch (err) {
    // Synchronous throws from request() (e.g. a key with a newline) still count as an attempt.
    return failure(describeError(err));
  }
}
