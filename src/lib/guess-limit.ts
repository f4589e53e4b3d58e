// Failed guesses of a secret (the operator token, on the console), counted per client address (an
// IPv6 client's /64), so that one address cannot try more than a few a minute. No limit counts
// over all addresses: it would let strangers lock everyone out. Past the limit, attempts are
// refused before the secret is compared at all: a right guess is refused like a wrong one, or the
// lock would tell which guess was right.
import { isIPv6 } from 'node:net';
import { AppError, Errors } from '../errors.js';
import type { Clock } from './clock.js';
import { retryAfterSeconds, type Bucket, type MemoryRateLimiter, type RateLimiter, type Take } from './rate-limit.js';

/** 10 failures from one address, then one more every 6 s (10 a minute). */
export const GUESSES_PER_ADDRESS: Bucket = { burst: 10, perSecond: 10 / 60 };

/** A refused attempt: a 429 with Retry-After; the sign-in page shows `retryAfterS`. */
export class TooManyGuesses extends AppError {
  readonly retryAfterS: number;
  constructor(retryAfterMs: number) {
    const seconds = retryAfterSeconds(retryAfterMs);
    const detail = `${Errors.tooManyAttempts.message}; try again in ${seconds} s`;
    super(Errors.tooManyAttempts, detail, {}, { 'retry-after': String(seconds) });
    this.retryAfterS = seconds;
  }
}

/** An IPv4 client as it is; an IPv6 one by its /64 (an IPv4-mapped one as IPv4). */
export function networkOf(address: string): string {
  const bare = address.replace(/%.*$/, '');
  if (!isIPv6(bare)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped?.[1] !== undefined) return mapped[1];
  const [head = '', tail] = bare.split('::');
  const before = head === '' ? [] : head.split(':');
  const after = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined
      ? before
      : [...before, ...new Array<string>(8 - before.length - after.length).fill('0'), ...after];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

const waitOf = (take: Take): number => (take.ok ? 0 : take.retryAfterMs);

export class GuessLimiter {
  /**
   * `local` is this instance's memory; `shared` is Redis when instances share limits (undefined
   * otherwise: the limits are then per instance). With Redis a check and the count after a wrong
   * guess are two round trips apart, so guesses sent at once could all pass the check; the local
   * limiter is checked and counted within one turn of the event loop (after Redis answered), which
   * caps such a burst at the limit on each instance. In memory, buckets are forgotten once full
   * again (6 to 60 s after a guess); an IPv6 client is counted by its /64, which one subscriber
   * holds whole, so a bucket costs a stranger a network, not an address.
   */
  constructor(
    private readonly scope: string,
    private readonly local: MemoryRateLimiter,
    private readonly shared: RateLimiter | undefined,
    private readonly clock: Clock,
  ) {}

  /**
   * Runs `check` unless the address is locked out (then throws TooManyGuesses without running
   * it); an undefined answer is a failed guess and is counted. `check` must compare the secret
   * before its first await, so that on this instance no other attempt passes in between.
   */
  async attempt<T>(address: string, check: () => Promise<T | undefined>): Promise<T | undefined> {
    const { shared, local } = this;
    const now = this.clock.now();
    const key = `${this.scope}:${networkOf(address)}`;
    const remote = shared === undefined ? 0 : waitOf(await shared.peek(key, GUESSES_PER_ADDRESS, now));
    const wait = Math.max(remote, waitOf(local.peek(key, GUESSES_PER_ADDRESS, now)));
    if (wait > 0) throw new TooManyGuesses(wait);
    const value = await check();
    if (value !== undefined) return value;
    const claims = [{ key, bucket: GUESSES_PER_ADDRESS }];
    local.take(claims, now);
    if (shared !== undefined) await shared.take(claims, now);
    return undefined;
  }
}
