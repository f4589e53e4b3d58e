// Webhook callbacks over HTTP (decisions.md section 2): the signed request, the URL policy
// (https only, no loopback/private/link-local targets unless allowInsecure) and one delivery attempt.
import { createHmac } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup as dnsLookupAll } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { webUrl } from '../../lib/input-rules.js';

export const WEBHOOK_TIMEOUT_MS = 10_000;

/** Response bytes read before the socket is dropped (only a Telegram-format answer is used). */
const MAX_RESPONSE_BYTES = 64 * 1024;

const PRIVATE_ADDRESS = 'resolves to a private address';

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

const blocked = new BlockList();
// IPv4 (BlockList also matches IPv4-mapped IPv6 such as ::ffff:127.0.0.1 against these).
blocked.addSubnet('0.0.0.0', 8, 'ipv4'); // "this network", includes unspecified 0.0.0.0
blocked.addSubnet('10.0.0.0', 8, 'ipv4');
blocked.addSubnet('100.64.0.0', 10, 'ipv4'); // CGNAT
blocked.addSubnet('127.0.0.0', 8, 'ipv4');
blocked.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, cloud metadata endpoints
blocked.addSubnet('172.16.0.0', 12, 'ipv4');
blocked.addSubnet('192.168.0.0', 16, 'ipv4');
blocked.addSubnet('224.0.0.0', 4, 'ipv4'); // multicast
blocked.addSubnet('240.0.0.0', 4, 'ipv4'); // reserved, includes broadcast 255.255.255.255
// IPv6.
blocked.addAddress('::', 'ipv6'); // unspecified
blocked.addAddress('::1', 'ipv6');
blocked.addSubnet('::', 96, 'ipv6'); // deprecated IPv4-compatible (::127.0.0.1), never a public target
blocked.addSubnet('fc00::', 7, 'ipv6'); // unique local
blocked.addSubnet('fe80::', 10, 'ipv6'); // link-local
blocked.addSubnet('fec0::', 10, 'ipv6'); // deprecated site-local
blocked.addSubnet('ff00::', 8, 'ipv6'); // multicast

/** True for loopback, private (RFC 1918, unique local fc00::/7), link-local (169.254/16, fe80::/10), unspecified, CGNAT 100.64/10, multicast, broadcast, 0.0.0.0/8, and IPv4-mapped IPv6 of those (::ffff:127.0.0.1). Use net.BlockList. */
export function isDisallowedAddress(address: string): boolean {
  // A zone id (fe80::1%eth0) names an interface, not part of the address.
  const bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const family = isIP(bare);
  // Anything that is not an IP address cannot be vetted, so it is refused.
  if (family === 0) return true;
  return blocked.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/** IP literal of a URL hostname without the IPv6 brackets, or undefined for a name. */
function literalIp(hostname: string): string | undefined {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(bare) === 0 ? undefined : bare;
}

/** Names the setting, so a developer trying a local receiver knows what to change. */
export const INSECURE_REFUSED =
  'must start with https:// (set WEBHOOK_ALLOW_INSECURE=1 on the server to allow http:// in development)';

/** The checks that need no DNS: the text, as every URL a developer types (lib/input-rules.ts), and literal IP hosts. */
function precheck(url: string, allowInsecure: boolean): { url: URL } | { reason: string } {
  const parsed = allowInsecure ? webUrl(url, ['http:', 'https:']) : webUrl(url, ['https:'], INSECURE_REFUSED);
  if (typeof parsed === 'string') return { reason: parsed };
  if (allowInsecure) return { url: parsed };
  const ip = literalIp(parsed.hostname);
  if (ip !== undefined && isDisallowedAddress(ip)) return { reason: PRIVATE_ADDRESS };
  return { url: parsed };
}

/** Undefined when acceptable, else a short reason (e.g. "must start with https://", "resolves to a private address", "is not a valid URL", "host does not resolve"). Resolves DNS (node:dns/promises lookup with all: true) and refuses if ANY resolved address is disallowed; literal IPs are checked directly. With allowInsecure: http and https both allowed, no address checks (still must parse, and only http/https). */
export async function checkWebhookUrl(url: string, allowInsecure: boolean): Promise<string | undefined> {
  const pre = precheck(url, allowInsecure);
  if ('reason' in pre) return pre.reason;
  if (allowInsecure || literalIp(pre.url.hostname) !== undefined) return undefined;
  let addresses: LookupAddress[];
  try {
    addresses = await dnsLookupAll(pre.url.hostname, { all: true });
  } catch {
    return 'host does not resolve';
  }
  if (addresses.length === 0) return 'host does not resolve';
  return addresses.some((a) => isDisallowedAddress(a.address)) ? PRIVATE_ADDRESS : undefined;
}

export interface Attempt {
  ok: boolean;
  status: number | null;
  error: string | null;
  /** from a Retry-After header (seconds or HTTP date), in ms */
  retryAfterMs: number | null;
  durationMs: number;
  /** The response body (up to 64 KiB), when the caller asked for it. */
  body?: string;
}

/** Marks the refusal by our connect-time lookup so it is reported as such, not as a DNS failure. */
class DisallowedAddressError extends Error {
  readonly code = 'EDISALLOWEDADDRESS';
}

/**
 * Resolves like dns.lookup but fails when any address is disallowed, so the address actually
 * connected to is the one vetted (no DNS rebinding between a check and the delivery).
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) {
      callback(err, '');
      return;
    }
    const first = addresses[0];
    if (first === undefined) {
      const none: NodeJS.ErrnoException = new Error('no addresses');
      none.code = 'ENOTFOUND';
      callback(none, '');
      return;
    }
    if (addresses.some((a) => isDisallowedAddress(a.address))) {
      callback(new DisallowedAddressError(PRIVATE_ADDRESS), '');
      return;
    }
    // net asks for all addresses when it races families (autoSelectFamily), else for one.
    if (options.all === true) callback(null, addresses);
    else callback(null, first.address, first.family);
  });
};

/** Retry-After as delay-seconds or an HTTP date, in ms from `now`; null when absent or unparsable. */
function retryAfterMs(header: string | undefined, now: number): number | null {
  if (header === undefined) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Date.parse accepts bare numbers like "7.5"; an HTTP date always has a weekday or month name.
  if (!/[A-Za-z]/.test(value)) return null;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** A short description of a transport error, safe to show (codes only, never messages). */
function describeError(err: unknown): string {
  const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  switch (code) {
    case 'EDISALLOWEDADDRESS':
      return PRIVATE_ADDRESS;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NODATA':
    case 'EAI_NONAME':
      return 'host does not resolve';
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

/** One delivery attempt. Never throws. Extra `headers` go with the signed ones; `keepBody` returns the (capped) response body. Uses node:http / node:https request with a custom `lookup` that resolves and refuses disallowed addresses at connect time (defends against DNS rebinding between check and delivery) unless allowInsecure; timeout WEBHOOK_TIMEOUT_MS (option `timeoutMs` to override for tests) covering connect + response; reads and discards the response body (cap what you read, e.g. 64 KiB) ; no redirects followed (a 3xx is a failure). `now` is used for the webhook-timestamp header. */
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
  /** Keep the response body (Telegram-format receivers may answer with a method call). */
  keepBody?: boolean;
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

  try {
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
        ...(input.allowInsecure ? {} : { lookup: guardedLookup }),
      });
      let settled = false;
      let response: IncomingMessage | undefined;
      const chunks: Buffer[] = [];

      const outcome = (res: IncomingMessage): Attempt => {
        const status = res.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        const redirect = status >= 300 && status < 400;
        return {
          ok,
          status,
          error: ok ? null : redirect ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`,
          retryAfterMs: retryAfterMs(res.headers['retry-after'], input.now),
          durationMs: elapsed(),
          ...(input.keepBody === true ? { body: Buffer.concat(chunks).toString('utf8') } : {}),
        };
      };
      const settle = (attempt: Attempt) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        // Nothing more is wanted from this connection (agent: false, so it is never pooled).
        req.destroy();
        resolve(attempt);
      };

      // One deadline for connect, request, status and the capped body read.
      const timer = setTimeout(() => {
        // Once the status is in, the outcome is known; only the body was slow.
        settle(response ? outcome(response) : failure(`timeout after ${timeoutMs / 1000} s`));
      }, timeoutMs);

      req.on('error', (err) => {
        settle(response ? outcome(response) : failure(describeError(err)));
      });
      req.on('response', (res) => {
        response = res;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (input.keepBody === true) chunks.push(chunk);
          if (read >= MAX_RESPONSE_BYTES) settle(outcome(res));
        });
        // A body cut short does not change what the status said.
        res.on('end', () => {
          settle(outcome(res));
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

/**
 * A Webhook URL together with checkWebhookUrl's verdict. Setting a webhook takes one of these, so
 * the check cannot be skipped, yet its DNS lookup runs before the write transaction opens (a slow
 * resolver must not hold the store's write lock).
 */
export class VettedWebhookUrl {
  private constructor(
    readonly url: string,
    readonly problem: string | undefined,
  ) {}

  static async vet(url: string, allowInsecure: boolean): Promise<VettedWebhookUrl> {
    return new VettedWebhookUrl(url, await checkWebhookUrl(url, allowInsecure));
  }
}
