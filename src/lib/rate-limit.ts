// Token buckets. In memory for one instance; in Redis (one atomic script per take) when several
// instances must share the limits. A take claims a token from each of several buckets at once
// (a send: its chat's and the bot's overall), from all of them or from none.
import type { Redis } from 'ioredis';
import { AppError, Errors, type ErrorDef } from '../errors.js';

export interface Bucket {
  /** Tokens added per second. */
  perSecond: number;
  /** Capacity: how many may be taken at once after a quiet spell. */
  burst: number;
}

export interface Take {
  ok: boolean;
  /** When refused: how long until a token is available. */
  retryAfterMs: number;
}

/** A bucket as the IETF RateLimit header fields describe it: `quota` requests per `windowS` seconds. */
export interface Policy {
  name: string;
  quota: number;
  windowS: number;
}

/** One token wanted from the bucket `bucket` kept under `key`. */
export interface Claim {
  key: string;
  bucket: Bucket;
}

/** A take's answer: every claim got its token, or none did and `claim` is the first that had none. */
export type Taken = { ok: true } | { ok: false; retryAfterMs: number; claim: Claim };

/** The policy's name is the key's scope (`send`, `chat`, `group`, `read`), never the id after it. */
export const policyOf = ({ key, bucket }: Claim): Policy => ({
  name: key.slice(0, Math.max(0, key.indexOf(':'))) || 'default',
  quota: bucket.burst,
  windowS: Math.max(1, Math.ceil(bucket.burst / bucket.perSecond)),
});

export interface RateLimiter {
  /**
   * A token from every claim's bucket when each has one, else from none (a send refused by one
   * bucket spends nothing in another). Claims name distinct keys. The in-memory limiter answers
   * at once; a shared one (Redis) answers with a promise.
   */
  take(claims: readonly Claim[], now: number): Taken | Promise<Taken>;
  /**
   * What a take would answer now, taking nothing: for limits that count only some outcomes (failed
   * guesses), checked before the work and taken only when it fails.
   */
  peek(key: string, bucket: Bucket, now: number): Take | Promise<Take>;
}

const OK: Take = { ok: true, retryAfterMs: 0 };

/** How long until a bucket left with `tokens` (fewer than one) has a whole token. */
const waitMs = (bucket: Bucket, tokens: number): number => Math.ceil(((1 - tokens) / bucket.perSecond) * 1000);

/**
 * The tokens of a bucket last left with `tokens` at `at`, refilled up to `now`. A `now` a little
 * before `at` (a take that read the clock before waiting on Redis, answered after a later one) takes
 * back what the later stamp gave, so the count stays exact whatever order takes arrive in.
 */
const refilled = (bucket: Bucket, tokens: number, at: number, now: number): number =>
  Math.min(bucket.burst, tokens + ((now - at) / 1000) * bucket.perSecond);

/** A bucket stamped more than this after `now` was stamped by this clock before it was set back. */
const STEP_BACK_MS = 5_000;

const answer = (bucket: Bucket, tokens: number): Take =>
  tokens < 1 ? { ok: false, retryAfterMs: waitMs(bucket, tokens) } : OK;

/** How often the in-memory limiter forgets buckets that are full again. */
const SWEEP_MS = 10_000;

export class MemoryRateLimiter implements RateLimiter {
  /** `full`: when the bucket is back at its burst, after which it is the same as no bucket. */
  private readonly buckets = new Map<string, { tokens: number; at: number; full: number }>();
  private lastSweep = 0;

  take(claims: readonly Claim[], now: number): Taken {
    // A clock set back would otherwise put off every sweep until it caught up again.
    if (now - this.lastSweep > SWEEP_MS || now < this.lastSweep) this.sweep(now);
    const refills = claims.map((claim) => {
      const state = this.state(claim.key, now);
      const tokens = state === undefined ? claim.bucket.burst : refilled(claim.bucket, state.tokens, state.at, now);
      return { claim, tokens };
    });
    // A refusal changes no bucket: left as they were, they refill to the same tokens later.
    const empty = refills.find(({ tokens }) => tokens < 1);
    if (empty !== undefined) {
      return { ok: false, retryAfterMs: waitMs(empty.claim.bucket, empty.tokens), claim: empty.claim };
    }
    for (const { claim, tokens } of refills) {
      const { perSecond, burst } = claim.bucket;
      const left = tokens - 1;
      // A millisecond past the exact refill, so that by then the refill computed above reaches the
      // burst whatever the rounding: forgetting the bucket then changes no answer.
      const full = now + Math.ceil(((burst - left) / perSecond) * 1000) + 1;
      this.buckets.set(claim.key, { tokens: left, at: now, full });
    }
    return { ok: true };
  }

  /** A bucket never taken from, or forgotten once full, answers as a full one. */
  peek(key: string, bucket: Bucket, now: number): Take {
    const state = this.state(key, now);
    return state === undefined ? OK : answer(bucket, refilled(bucket, state.tokens, state.at, now));
  }

  /**
   * The key's bucket as of `now`. One stamped well after `now` (STEP_BACK_MS) was stamped by this
   * clock before it was set back: it is taken as left at `now`, with its tokens and its time to
   * full, so that it refills at its rate from now on. Left stamped later (as the shared buckets in
   * Redis are, whose stamps come from several clocks), a bucket drained just before an hour's step
   * back refills nothing for the hour, and a refusal changes no bucket: it would answer 429 for the
   * hour. Takes out of order by less keep the exact arithmetic (refilled).
   */
  private state(key: string, now: number): { tokens: number; at: number; full: number } | undefined {
    const state = this.buckets.get(key);
    if (state !== undefined && state.at > now + STEP_BACK_MS) {
      state.full = now + (state.full - state.at);
      state.at = now;
    }
    return state;
  }

  /** Buckets held: each lasts only until it is full again, so at most the keys of a burst's refill time. */
  get size(): number {
    return this.buckets.size;
  }

  /**
   * Forgets the buckets that are full again: a bot with many chats (and a read limit per API key)
   * would otherwise keep one bucket per chat or key it ever used, for good.
   */
  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, state] of this.buckets) if (state.full <= now) this.buckets.delete(key);
  }
}

// KEYS: the buckets; ARGV: now ms, then per second and burst of each key in turn. Returns {0, 0}
// when every bucket gave a token, else {i, tokens * 1000} of the first (from 1) that had none,
// having changed no bucket. Instances' clocks differ: `at` never moves back, else an instance
// behind would rewind it and the next take by one ahead would refill the skew again.
// The script touches KEYS only, never a name of its own: ioredis puts the connection's keyPrefix
// (REDIS_PREFIX) before each of them, as before the key of HMGET in `peek`.
const TAKE = `
local now = tonumber(ARGV[1])
local left, stamp = {}, {}
for i, key in ipairs(KEYS) do
  local rate, burst = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  local state = redis.call('HMGET', key, 'tokens', 'at')
  local tokens = tonumber(state[1]) or burst
  local at = tonumber(state[2]) or now
  tokens = math.min(burst, tokens + math.max(0, now - at) / 1000 * rate)
  if tokens < 1 then return {i, math.floor(tokens * 1000)} end
  left[i] = tokens - 1
  stamp[i] = math.max(now, at)
end
for i, key in ipairs(KEYS) do
  local rate, burst = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  redis.call('HSET', key, 'tokens', tostring(left[i]), 'at', tostring(stamp[i]))
  redis.call('PEXPIRE', key, math.ceil(burst / rate * 1000) + 1000)
end
return {0, 0}
`;

export class RedisRateLimiter implements RateLimiter {
  constructor(private readonly redis: Redis) {}

  async take(claims: readonly Claim[], now: number): Promise<Taken> {
    const keys = claims.map(({ key }) => `rl:${key}`);
    const args = claims.flatMap(({ bucket }) => [bucket.perSecond, bucket.burst]);
    const reply: unknown = await this.redis.eval(TAKE, keys.length, ...keys, now, ...args);
    const [empty, milliTokens = 0] = Array.isArray(reply) ? reply.map(Number) : [];
    if (empty === 0) return { ok: true };
    const claim = empty === undefined ? undefined : claims[empty - 1];
    if (claim === undefined) throw new Error(`the take script answered ${JSON.stringify(reply)}`);
    return { ok: false, retryAfterMs: waitMs(claim.bucket, milliTokens / 1000), claim };
  }

  /** Reads the bucket the take script keeps (an expired one is full). */
  async peek(key: string, bucket: Bucket, now: number): Promise<Take> {
    const [tokens, at] = await this.redis.hmget(`rl:${key}`, 'tokens', 'at');
    if (tokens == null || at == null) return OK;
    // As the script does, a bucket stamped later than this clock (another instance's) is not refilled.
    return answer(bucket, refilled(bucket, Number(tokens), Math.min(Number(at), now), now));
  }
}

/** Seconds for a Retry-After header: whole, and at least 1. */
export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/**
 * The 429 for a refused take: Retry-After, and beside it the IETF draft's RateLimit-Policy (the
 * bucket as quota per window) and RateLimit (none remaining, seconds until one is back). `def`: the
 * registry entry whose envelope the surface answers in (the token endpoints' login envelope).
 */
export function rateLimitedError(take: Take, p?: Policy, def: ErrorDef = Errors.rateLimited): AppError {
  const seconds = retryAfterSeconds(take.retryAfterMs);
  const headers: Record<string, string> = { 'retry-after': String(seconds) };
  if (p !== undefined) {
    headers['ratelimit-policy'] = `"${p.name}";q=${p.quota};w=${p.windowS}`;
    headers.ratelimit = `"${p.name}";r=0;t=${seconds}`;
  }
  return new AppError(def, undefined, {}, headers);
}

/**
 * A token from each claim's bucket, or the 429 (as `def`, for a surface with its own envelope) of
 * the first that had none: for callers that wait on the store anyway, so the sync path buys nothing.
 */
export async function takeOrRefuse(
  limiter: RateLimiter,
  claims: readonly Claim[],
  now: number,
  def: ErrorDef = Errors.rateLimited,
): Promise<void> {
  const take = await limiter.take(claims, now);
  if (!take.ok) throw rateLimitedError(take, policyOf(take.claim), def);
}
