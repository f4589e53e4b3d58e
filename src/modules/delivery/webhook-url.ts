// Webhook URLs (decisions.md section 2): the address policy (https only, no loopback, private or
// link-local targets unless allowInsecure) and the DNS resolution it rests on, both when a URL is
// vetted and at connect time.
import type { LookupAddress } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { errorCode } from '../../lib/error-code.js';
import { webUrl } from '../../lib/input-rules.js';

export const PRIVATE_ADDRESS = 'resolves to a private address';
export const NOT_RESOLVED = 'host does not resolve';
export const RESOLVE_TOO_SLOW = 'host did not resolve in time';

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
export function webhookDns(): WebhookDns {
  defaultDns ??= { resolver: new Resolver({ timeout: 750, tries: 2 }), limitMs: WEBHOOK_DNS_LIMIT_MS };
  return defaultDns;
}

/** A name that did not resolve within the limit (or whose every query timed out). */
class DnsTimeoutError extends Error {
  readonly code = 'EWEBHOOKDNSTIMEOUT';
}

const isTimeout = (err: unknown): boolean => errorCode(err) === 'ETIMEOUT';

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
export function precheck(url: string, allowInsecure: boolean): { url: URL } | { reason: string } {
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

/** Marks the refusal by our connect-time lookup so it is reported as such, not as a DNS failure. */
class DisallowedAddressError extends Error {
  readonly code = 'EDISALLOWEDADDRESS';
}

/**
 * Resolves like dns.lookup (within the DNS limit) but fails when any address is disallowed, so
 * the address actually connected to is the one vetted (no DNS rebinding between a check and the
 * delivery).
 */
export const guardedLookup =
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
