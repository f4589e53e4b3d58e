// Token buckets. In memory for one instance; in Redis (one atomic script per take) when several
// instances must share the limits.
import type { Redis } from 'ioredis';
import { AppError, Errors } from '../errors.js';

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

/** The policy's name is the key's scope (`send`, `chat`, `group`, `read`), never the id after it. */
export const policyOf = (key: string, bucket: Bucket): Policy => ({
  name: key.slice(0, Math.max(0, key.indexOf(':'))) || 'default',
  quota: bucket.burst,
  windowS: Math.max(1, Math.ceil(bucket.burst / bucket.perSecond)),
});

export interface RateLimiter {
  /** The in-memory limiter answers at once; a shared one (Redis) answers with a promise. */
  take(key: string, bucket: Bucket, now: number): Take | Promise<Take>;
  /**
   * What a take would answer now, taking nothing: for limits that count only some outcomes (failed
   * guesses), checked before the work and taken only when it fails.
   */
  peek(key: string, bucket: Bucket, now: number): Take | Promise<Take>;
}

const OK: Take = { ok: true, retryAfterMs: 0 };

const refused = (bucket: Bucket, tokens: number): Take => ({
  ok: false,
  retryAfterMs: Math.ceil(((1 - tokens) / bucket.perSecond) * 1000),
});

/** The tokens of a bucket last left with `tokens` at `at`, refilled up to `now`. */
const refilled = (bucket: Bucket, tokens: number, at: number, now: number): number =>
  Math.min(bucket.burst, tokens + ((now - at) / 1000) * bucket.perSecond);

const answer = (bucket: Bucket, tokens: number): Take => (tokens < 1 ? refused(bucket, tokens) : OK);

/** How often the in-memory limiter forgets buckets that are full again. */
const SWEEP_MS = 10_000;

export class MemoryRateLimiter implements RateLimiter {
  /** `full`: when the bucket is back at its burst, after which it is the same as no bucket. */
  private readonly buckets = new Map<string, { tokens: number; at: number; full: number }>();
  private lastSweep = 0;

  take(key: string, bucket: Bucket, now: number): Take {
    // A clock set back would otherwise put off every sweep until it caught up again.
    if (now - this.lastSweep > SWEEP_MS || now < this.lastSweep) this.sweep(now);
    const state = this.buckets.get(key) ?? { tokens: bucket.burst, at: now };
    const tokens = refilled(bucket, state.tokens, state.at, now);
    const left = tokens < 1 ? tokens : tokens - 1;
    // A millisecond past the exact refill, so that by then the refill computed above reaches the
    // burst whatever the rounding: forgetting the bucket then changes no answer.
    const full = now + Math.ceil(((bucket.burst - left) / bucket.perSecond) * 1000) + 1;
    this.buckets.set(key, { tokens: left, at: now, full });
    return answer(bucket, tokens);
  }

  /** A bucket never taken from, or forgotten once full, answers as a full one. */
  peek(key: string, bucket: Bucket, now: number): Take {
    const state = this.buckets.get(key);
    return state === undefined ? OK : answer(bucket, refilled(bucket, state.tokens, state.at, now));
  }

  /** Buckets held: each lasts only until it is full again, so at most the keys of a burst's refill time. */
  get size(): number {
    return this.buckets.size;
  }

  /**
   * Forgets the buckets that are full again: a key a client makes up (a chat id, say) is taken
   * before anything checks it, so keeping idle buckets for long would let a client fill the heap.
   */
  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, state] of this.buckets) if (state.full <= now) this.buckets.delete(key);
  }
}

// KEYS[1] bucket; ARGV: now ms, per second, burst. Returns {1, 0} or {0, tokens * 1000}.
const TAKE = `
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local now, rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) / 1000 * rate)
local ok = 0
if tokens >= 1 then tokens = tokens - 1; ok = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return {ok, math.floor(tokens * 1000)}
`;

export class RedisRateLimiter implements RateLimiter {
  constructor(private readonly redis: Redis) {}

  async take(key: string, bucket: Bucket, now: number): Promise<Take> {
    const reply: unknown = await this.redis.eval(TAKE, 1, `rl:${key}`, now, bucket.perSecond, bucket.burst);
    const [ok, milliTokens] = Array.isArray(reply) ? reply.map(Number) : [0, 0];
    return ok === 1 ? OK : refused(bucket, (milliTokens ?? 0) / 1000);
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
 * bucket as quota per window) and RateLimit (none remaining, seconds until one is back).
 */
export function rateLimitedError(take: Take, p?: Policy): AppError {
  const seconds = retryAfterSeconds(take.retryAfterMs);
  const headers: Record<string, string> = { 'retry-after': String(seconds) };
  if (p !== undefined) {
    headers['ratelimit-policy'] = `"${p.name}";q=${p.quota};w=${p.windowS}`;
    headers.ratelimit = `"${p.name}";r=0;t=${seconds}`;
  }
  return new AppError(Errors.rateLimited, undefined, {}, headers);
}
