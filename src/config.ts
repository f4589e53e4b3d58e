// The only reader of process.env: every setting is parsed and checked here, and a bad
// configuration stops the start-up with the full list of problems.
import { isIP } from 'node:net';
import type { SqliteSynchronous } from './db/connect.js';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string | undefined;
  /**
   * Put before every key and pub/sub channel this instance uses in Redis; empty (the default) keeps
   * the names as they are. Instances of one platform share it; platforms sharing a Redis differ.
   */
  redisPrefix: string;
  adminToken: string | undefined;
  publicUrl: string;
  authCodeTtlS: number;
  accessTokenTtlS: number;
  refreshTokenTtlS: number;
  paymentTokenTtlS: number;
  webhookAllowInsecure: boolean;
  rateLimits: boolean;
  limits: RateLimitSettings;
  requireSigned: boolean;
  /** 32-byte key (base64) for secrets at rest; when unset a key file beside the data is used. */
  encryptionKey: string | undefined;
  keyFile: string;
  /** SQLITE_SYNCHRONOUS: whether a SQLite commit waits for the disk (db/connect.ts says what each costs). */
  sqliteSynchronous: SqliteSynchronous;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Webhook retries: the first backoff, doubling up to the cap; Updates older than the retention are dropped. */
  webhookRetryBaseMs: number;
  webhookRetryMaxMs: number;
  updateRetentionS: number;
  /** When set, /metrics answers only `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** The playground (/playground/): on by default, `PLAYGROUND=off` in production. */
  playground: boolean;
  /**
   * Addresses or CIDR ranges of reverse proxies whose X-Forwarded-For names the client (per-address
   * limits, such as wrong operator tokens, count the client, not the proxy); none by default.
   */
  trustProxy: string[];
  /** Settings that work but deserve a look: one line each, written at start-up. */
  warnings: string[];
}

/** decisions.md section 3 defaults; each configurable. */
export interface RateLimitSettings {
  botPerSecond: number;
  privateChatPerSecond: number;
  privateChatBurst: number;
  groupPerMinute: number;
  readsPerSecond: number;
  /** Code exchanges and refreshes per second per app (modules/oauth/limits.ts); not in decisions.md. */
  tokenAppPerSecond: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid settings:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];
const isLogLevel = (v: string): v is LogLevel => (LOG_LEVELS as readonly string[]).includes(v);

/**
 * The address with its password masked, to name in a message (decisions.md section 1: no secret in
 * a log line). A regex, not URL: the addresses worth naming are often the ones that do not parse.
 * The password runs to the last @, as URL reads it; masking too much is the safe mistake. One given
 * as a query parameter (pg reads `?password=` and `?sslpassword=`, in any case) is masked first,
 * so an @ inside it cannot move where the user part ends.
 */
export function withoutPassword(url: string): string {
  return url.replace(/([?&](?:ssl)?password=)[^&#]*/gi, '$1***').replace(/^(.*?:\/*[^:/?#@]*):.*@/s, '$1:***@');
}

/** Characters an HTTP header carries as they are: a token with others could never be presented. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

/** A REDIS_PREFIX such as `staging:` or `platform.prod-1:`. */
const REDIS_PREFIX = /^[A-Za-z0-9:._-]{1,64}$/;

/** 203.0.113.7, 10.0.0.0/8, ::1 or fd00::/8. */
function isAddressOrRange(entry: string): boolean {
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const problems: string[] = [];
  const warnings: string[] = [];
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    // No leading zeros: 08080 reads as 8080 here but as octal or an error elsewhere.
    if (!/^(0|[1-9]\d*)$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  };
  const flag = (name: string, fallback: boolean, on = ['1', 'true', 'on'], off = ['0', 'false', 'off']): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (on.includes(raw)) return true;
    if (off.includes(raw)) return false;
    problems.push(`${name} must be one of ${[...on, ...off].join(', ')} (got "${raw}")`);
    return fallback;
  };

  const port = int('PORT', 8080, 0, 65535);
  // Secrets and addresses are read trimmed: a value mounted from a file (a Kubernetes secret)
  // usually ends in a newline, which no one means. Empty is unset; blanks alone are refused, as
  // for PORT, since they more likely mean a value lost on the way than the default.
  const text = (name: string): string | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const trimmed = raw.trim();
    if (trimmed === '') problems.push(`${name} is only blanks: set a value, or leave it empty for the default`);
    return trimmed || undefined;
  };
  const databaseUrl = text('DATABASE_URL') ?? 'sqlite:./data/platform.db';
  // A path may hold spaces inside, never at either end (`sqlite: ` named a file called space).
  if (!/^sqlite:\S(.*\S)?$/.test(databaseUrl) && !/^postgres(ql)?:\/\/\S+$/.test(databaseUrl)) {
    problems.push(`DATABASE_URL must be sqlite:<path> or postgres://... (got "${withoutPassword(databaseUrl)}")`);
  }
  const redisUrl = text('REDIS_URL');
  if (redisUrl !== undefined && !/^rediss?:\/\/\S+$/.test(redisUrl)) {
    problems.push(`REDIS_URL must be redis://... or rediss://...`);
  }
  const redisPrefix = text('REDIS_PREFIX') ?? '';
  // Characters that read the same in a key, a channel name, a log line and redis-cli.
  if (redisPrefix !== '' && !REDIS_PREFIX.test(redisPrefix)) {
    problems.push(
      `REDIS_PREFIX must be 1 to 64 characters of A-Z, a-z, 0-9, ':', '.', '_' or '-' (got "${redisPrefix}")`,
    );
  }
  if (redisPrefix !== '' && redisUrl === undefined) {
    warnings.push('REDIS_PREFIX is set without REDIS_URL: it has no effect');
  }
  const adminToken = text('ADMIN_TOKEN');
  // operator-api.md sets no length (a test harness may use "secret"), so a short token only warns.
  if (adminToken !== undefined && adminToken.length < 16) {
    warnings.push('ADMIN_TOKEN is shorter than 16 characters: easy to guess; choose a longer one outside tests');
  }
  const metricsToken = text('METRICS_TOKEN');
  // Both arrive as `Authorization: Bearer <token>`, which ends at a space and carries no control
  // or non-ASCII characters as typed: with one of those every call would be refused.
  for (const [name, token] of [
    ['ADMIN_TOKEN', adminToken],
    ['METRICS_TOKEN', metricsToken],
  ] as const) {
    if (token !== undefined && !HEADER_SAFE.test(token)) {
      problems.push(`${name} may hold only visible ASCII characters (no spaces, control or non-ASCII characters)`);
    }
  }
  const publicUrl = (text('PUBLIC_URL') ?? `http://localhost:${port}`).replace(/\/+$/, '');
  // Links are built by appending paths: a query or fragment would end up in the middle of them.
  if (!/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/.test(publicUrl)) {
    problems.push(
      `PUBLIC_URL must be an http(s) address without spaces, query or fragment (got "${withoutPassword(publicUrl)}")`,
    );
  } else if (!URL.canParse(publicUrl)) {
    // The pattern lets through a port out of range or a host URL refuses (https://:80), which
    // would otherwise stop the start later with an unrelated error.
    problems.push(`PUBLIC_URL is not a valid address (got "${withoutPassword(publicUrl)}"): check its host and port`);
  }
  const encryptionKey = text('ENCRYPTION_KEY');
  // Node's base64 decoder skips characters it does not know, so the length alone let typos through
  // (it reads the URL-safe alphabet too, which key generators also print).
  if (
    encryptionKey !== undefined &&
    (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encryptionKey) || Buffer.from(encryptionKey, 'base64').length !== 32)
  ) {
    problems.push('ENCRYPTION_KEY must be 32 bytes in base64');
  }
  const trustProxy = (env.TRUST_PROXY ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  for (const entry of trustProxy) {
    if (!isAddressOrRange(entry)) problems.push(`TRUST_PROXY must list IP addresses or CIDR ranges (got "${entry}")`);
  }
  const rawSynchronous = (text('SQLITE_SYNCHRONOUS') ?? 'normal').toLowerCase();
  const sqliteSynchronous: SqliteSynchronous = rawSynchronous === 'full' ? 'full' : 'normal';
  if (rawSynchronous !== 'full' && rawSynchronous !== 'normal') {
    problems.push(`SQLITE_SYNCHRONOUS must be normal or full (got "${rawSynchronous}")`);
  }
  const rawLevel = env.LOG_LEVEL || 'info';
  if (!isLogLevel(rawLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const config: Config = {
    port,
    host: env.HOST || '0.0.0.0',
    databaseUrl,
    redisUrl,
    redisPrefix,
    adminToken,
    publicUrl,
    authCodeTtlS: int('AUTH_CODE_TTL_S', 300, 1, 86_400),
    accessTokenTtlS: int('ACCESS_TOKEN_TTL_S', 7200, 1, 31_536_000),
    refreshTokenTtlS: int('REFRESH_TOKEN_TTL_S', 1_209_600, 1, 31_536_000),
    paymentTokenTtlS: int('PAYMENT_TOKEN_TTL_S', 300, 1, 86_400),
    webhookAllowInsecure: flag('WEBHOOK_ALLOW_INSECURE', false),
    rateLimits: flag('RATE_LIMITS', true, ['on', '1', 'true'], ['off', '0', 'false']),
    limits: {
      botPerSecond: int('RATE_LIMIT_BOT_PER_S', 30, 1, 1_000_000),
      privateChatPerSecond: int('RATE_LIMIT_PRIVATE_PER_S', 1, 1, 1_000_000),
      privateChatBurst: int('RATE_LIMIT_PRIVATE_BURST', 5, 1, 1_000_000),
      groupPerMinute: int('RATE_LIMIT_GROUP_PER_MIN', 20, 1, 1_000_000),
      readsPerSecond: int('RATE_LIMIT_READS_PER_S', 100, 1, 1_000_000),
      tokenAppPerSecond: int('RATE_LIMIT_TOKEN_APP_PER_S', 1000, 1, 1_000_000),
    },
    requireSigned: flag('REQUIRE_SIGNED', false),
    encryptionKey,
    keyFile: text('KEY_FILE') ?? './data/encryption.key',
    sqliteSynchronous,
    logLevel: isLogLevel(rawLevel) ? rawLevel : 'info',
    webhookRetryBaseMs: int('WEBHOOK_RETRY_BASE_MS', 1000, 1, 3_600_000),
    webhookRetryMaxMs: int('WEBHOOK_RETRY_MAX_MS', 600_000, 1, 86_400_000),
    updateRetentionS: int('UPDATE_RETENTION_S', 86_400, 1, 2_592_000),
    metricsToken,
    playground: flag('PLAYGROUND', true, ['on', '1', 'true'], ['off', '0', 'false']),
    trustProxy,
    warnings,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
