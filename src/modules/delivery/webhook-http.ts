// Webhook callbacks over HTTP (decisions.md section 2): the signed request, the URL policy
// (https only, no loopback/private/link-local targets unless allowInsecure) and one delivery attempt.
import { createHmac } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { TELEGRAM_BODY_LIMIT } from '../../http/body.js';
import { webUrl } from '../../lib/input-rules.js';

export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * Response bytes read before the socket is dropped: a body kept (a Telegram-format answer, which
 * may be a method call) up to what a call to the Telegram surface may carry; one discarded, 64 KiB.
 * At most MAX_IN_FLIGHT (256) answers are read at once, so kept bodies stay under 64 MiB.
 */
const responseCap = (keepBody: boolean | undefined): number => (keepBody === true ? TELEGRAM_BODY_LIMIT : 64 * 1024);

const PRIVATE_ADDRESS = 'resolves to a private address';
const NOT_RESOLVED = 'host does not resolve';
const RESOLVE_TOO_SLOW = 'host did not resolve in time';

/**
 * How long a webhook host name may take to resolve, for the URL check and at connect time. Names
 * are resolved through c-ares (dns.promises.Resolver), not dns.lookup: lookup runs getaddrinfo on
 * libuv's 4-thread pool with the system's retries, so a few names whose DNS never answers held
 * every lookup (and file read) of the process, and one held an operator event batch for 20 s.
 */
export const WEBHOOK_DNS_LIMIT_MS = 3_000;

/** The two queries used: a dns.promises.Resolver, or in tests one that never answers. */
export interface HostResolver {
  resolve4(hostname: string): Promise<string[]>;
  resolve6(hostname: string): Promise<string[]>;
}

/** The resolver and the time limit of webhook host names (tests inject their own). */
export interface WebhookDns {
  resolver: HostResolver;
  limitMs: number;
}

let defaultDns: WebhookDns | undefined;
/** Made on first use. 750 ms a try, then 1.5 s: one unanswering server gives up (ETIMEOUT) inside the limit. */
function webhookDns(): WebhookDns {
  defaultDns ??= { resolver: new Resolver({ timeout: 750, tries: 2 }), limitMs: WEBHOOK_DNS_LIMIT_MS };
  return defaultDns;
}

/** A name that did not resolve within the limit (or whose every query timed out). */
class DnsTimeoutError extends Error {
  readonly code = 'EWEBHOOKDNSTIMEOUT';
}

const isTimeout = (err: unknown): boolean => err instanceof Error && 'code' in err && err.code === 'ETIMEOUT';

function notFound(): NodeJS.ErrnoException {
  const none: NodeJS.ErrnoException = new Error(NOT_RESOLVED);
  none.code = 'ENOTFOUND';
  return none;
}

/** RFC 6761: localhost names are loopback; c-ares does not read /etc/hosts, so they are answered here. */
const isLocalhost = (hostname: string): boolean => /(^|\.)localhost\.?$/i.test(hostname);

/**
 * The addresses of a name (family 4, 6 or 0 for both, IPv4 first), never empty, within
 * `dns.limitMs`. Throws a DnsTimeoutError when the limit passes or every query timed out, else
 * ENOTFOUND. A query left over after the limit ends on c-ares' own timeout.
 */
async function resolveHost(hostname: string, family: 0 | 4 | 6, dns: WebhookDns): Promise<LookupAddress[]> {
  if (isLocalhost(hostname)) {
    const loopback: LookupAddress[] = [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ];
    return loopback.filter((a) => family === 0 || a.family === family);
  }
  const query = (f: 4 | 6) =>
    (f === 4 ? dns.resolver.resolve4(hostname) : dns.resolver.resolve6(hostname)).then((addresses) =>
      addresses.map((address): LookupAddress => ({ address, family: f })),
    );
  const families: (4 | 6)[] = family === 0 ? [4, 6] : [family];
  /** Answers as they arrive: at the limit, a family that answered is enough (some resolvers drop AAAA). */
  const found: LookupAddress[] = [];
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => {
      resolve('late');
    }, dns.limitMs);
  });
  try {
    const queries = families.map((f) =>
      query(f).then((addresses) => {
        found.push(...addresses);
        return addresses;
      }),
    );
    // One family may lack records (ENODATA) while the other has them.
    const settled = await Promise.race([Promise.allSettled(queries), limit]);
    if (settled === 'late') {
      if (found.length > 0) return [...found];
      throw new DnsTimeoutError(RESOLVE_TOO_SLOW);
    }
    const addresses = settled.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
    if (addresses.length > 0) return addresses;
    // c-ares gave up on every query (its tries ran out): as slow as the limit, not an answer.
    if (settled.some((r) => r.status === 'rejected' && isTimeout(r.reason))) {
      throw new DnsTimeoutError(RESOLVE_TOO_SLOW);
    }
    throw notFound();
  } finally {
    clearTimeout(timer);
  }
}

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
blocked.addSubnet('198.18.0.0', 15, 'ipv4'); // benchmarking (RFC 2544), used inside networks
blocked.addSubnet('224.0.0.0', 4, 'ipv4'); // multicast
blocked.addSubnet('240.0.0.0', 4, 'ipv4'); // reserved, includes broadcast 255.255.255.255
// IPv6.
blocked.addAddress('::', 'ipv6'); // unspecified
blocked.addAddress('::1', 'ipv6');
blocked.addSubnet('::', 96, 'ipv6'); // deprecated IPv4-compatible (::127.0.0.1), never a public target
// These embed an IPv4 address that a gateway reaches for us (64:ff9b::7f00:1 is 127.0.0.1 through
// NAT64, 2002:0a00:0001:: is 10.0.0.1 through a 6to4 relay), so a private target hides inside.
blocked.addSubnet('64:ff9b::', 96, 'ipv6'); // NAT64 well-known prefix (RFC 6052)
blocked.addSubnet('64:ff9b:1::', 48, 'ipv6'); // NAT64 local-use prefix (RFC 8215)
blocked.addSubnet('2002::', 16, 'ipv6'); // 6to4 (RFC 3056)
blocked.addSubnet('fc00::', 7, 'ipv6'); // unique local
blocked.addSubnet('fe80::', 10, 'ipv6'); // link-local
blocked.addSubnet('fec0::', 10, 'ipv6'); // deprecated site-local
blocked.addSubnet('ff00::', 8, 'ipv6'); // multicast

/** True for loopback, private (RFC 1918, unique local fc00::/7), link-local (169.254/16, fe80::/10), unspecified, CGNAT 100.64/10, benchmarking 198.18/15, multicast, broadcast, 0.0.0.0/8, IPv4-mapped IPv6 of those (::ffff:127.0.0.1), and the NAT64 and 6to4 prefixes that carry any IPv4 address. Use net.BlockList. */
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
  // Nothing listens on port 0, and credentials in the URL would be shown back by getWebhookInfo.
  if (parsed.port === '0') return { reason: 'must not use port 0' };
  if (parsed.username !== '' || parsed.password !== '') return { reason: 'must not contain user:password@' };
  if (allowInsecure) return { url: parsed };
  const ip = literalIp(parsed.hostname);
  if (ip !== undefined && isDisallowedAddress(ip)) return { reason: PRIVATE_ADDRESS };
  return { url: parsed };
}

/** Undefined when acceptable, else a short reason (e.g. "must start with https://", "resolves to a private address", "is not a valid URL", "host does not resolve", "host did not resolve in time"). Resolves A and AAAA within the DNS limit and refuses if ANY resolved address is disallowed; literal IPs are checked directly. With allowInsecure: http and https both allowed, no address checks (still must parse, and only http/https). */
export async function checkWebhookUrl(
  url: string,
  allowInsecure: boolean,
  dns: WebhookDns = webhookDns(),
): Promise<string | undefined> {
  const pre = precheck(url, allowInsecure);
  if ('reason' in pre) return pre.reason;
  if (allowInsecure || literalIp(pre.url.hostname) !== undefined) return undefined;
  let addresses: LookupAddress[];
  try {
    addresses = await resolveHost(pre.url.hostname, 0, dns);
  } catch (err) {
    return err instanceof DnsTimeoutError ? RESOLVE_TOO_SLOW : NOT_RESOLVED;
  }
  return addresses.some((a) => isDisallowedAddress(a.address)) ? PRIVATE_ADDRESS : undefined;
}

export interface Attempt {
  ok: boolean;
  status: number | null;
  error: string | null;
  /** from a Retry-After header (seconds or HTTP date), in ms */
  retryAfterMs: number | null;
  durationMs: number;
  /** The response body (up to TELEGRAM_BODY_LIMIT, 256 KiB), when the caller asked for it. */
  body?: Buffer;
  /** The response's Content-Type, with the body: how an answer in it is to be read. */
  contentType?: string | undefined;
  /** Cut short by the caller's signal (the platform stopping), not ended by the receiver. */
  abandoned?: true;
}

export const ABANDONED = 'no answer before the platform stopped';

/** Marks the refusal by our connect-time lookup so it is reported as such, not as a DNS failure. */
class DisallowedAddressError extends Error {
  readonly code = 'EDISALLOWEDADDRESS';
}

/**
 * Resolves like dns.lookup (within the DNS limit) but fails when any address is disallowed, so
 * the address actually connected to is the one vetted (no DNS rebinding between a check and the
 * delivery).
 */
const guardedLookup =
  (dns: WebhookDns): LookupFunction =>
  (hostname, options, callback) => {
    const family =
      options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
    resolveHost(hostname, family, dns).then(
      (addresses) => {
        const first = addresses[0];
        if (first === undefined) {
          callback(notFound(), '');
          return;
        }
        if (addresses.some((a) => isDisallowedAddress(a.address))) {
          callback(new DisallowedAddressError(PRIVATE_ADDRESS), '');
          return;
        }
        // net asks for all addresses when it races families (autoSelectFamily), else for one.
        if (options.all === true) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (err: unknown) => {
        callback(err instanceof Error ? err : notFound(), '');
      },
    );
  };

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
  const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
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
          ...(input.keepBody === true ? { body: Buffer.concat(chunks), contentType: res.headers['content-type'] } : {}),
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
          if (input.keepBody === true) chunks.push(chunk);
          if (read >= cap) settle(outcome(res));
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

  /** Refused for not being https: the Telegram surface says so in Telegram's words, without the setting. */
  get notHttps(): boolean {
    return this.problem === INSECURE_REFUSED;
  }
}
