// The connection to Redis as the rest of the platform sees it: whether it answers now, each loss
// and return (for the log, the redis_up gauge and /readyz), and a way to fall back while it is gone.
import type { Redis } from 'ioredis';
import { settlesWithin, within } from './deadline.js';

/** Longest wait for one Redis command; far above a healthy answer, short enough for a request. */
export const COMMAND_TIMEOUT_MS = 750;

/** How often a link lost to a timed-out command asks Redis (PING) whether it answers again. */
export const PROBE_INTERVAL_MS = 1_000;

export type LinkListener = (up: boolean, detail: string) => void;

/** The link's waits (tests shorten them). */
export interface LinkTimings {
  commandTimeoutMs?: number;
  probeIntervalMs?: number;
}

/** How the link's connections are opened: its waits, and the namespace of its keys. */
export interface LinkOptions extends LinkTimings {
  /**
   * Put before every key a command names (REDIS_PREFIX), by ioredis's `keyPrefix`: the keys of SET,
   * DEL, HMGET and an EVAL's KEYS alike. Pub/sub channels are not keys and keep their names
   * (RedisBus prefixes them itself). Empty by default: keys exactly as named.
   */
  keyPrefix?: string;
}

/** ioredis's error for a command not answered within `commandTimeout`. */
const isTimeout = (e: unknown): boolean => e instanceof Error && e.message === 'Command timed out';

export class RedisLink {
  readonly redis: Redis;
  private wasReady = false;
  private lost = false;
  private lastError: string | undefined;
  private readonly listeners = new Set<LinkListener>();
  /** Lost because a command timed out on an open connection: PINGs ask until Redis answers again. */
  private probe: NodeJS.Timeout | undefined;

  /**
   * Loads ioredis and starts connecting to `url`. The package is loaded here, not at the top, so a
   * process without REDIS_URL never loads it. The bundle (scripts/bundle.mjs) keeps a dynamic
   * import of a package as it is; one of a local module would be inlined with its imports hoisted
   * to the top, so the import stays here.
   */
  static async open(url: string, options: LinkOptions = {}): Promise<RedisLink> {
    const { Redis: Client } = await import('ioredis');
    const commandTimeout = options.commandTimeoutMs ?? COMMAND_TIMEOUT_MS;
    const probeMs = options.probeIntervalMs ?? PROBE_INTERVAL_MS;
    const keyPrefix = options.keyPrefix ?? '';
    return new RedisLink(url, commandTimeout, probeMs, () => {
      // commandTimeout: a Redis that accepts but never answers (frozen, a dead peer behind a live
      // proxy) fails each command, so `either` falls back instead of hanging the request. No
      // blocking command is used, and the subscriber's SUBSCRIBE answers at once.
      const redis = new Client(url, { maxRetriesPerRequest: 2, commandTimeout, keyPrefix });
      // ioredis prints every connection error to the console unless someone listens.
      redis.on('error', () => undefined);
      return redis;
    });
  }

  /**
   * `connect` opens another connection to the same Redis: one that retries forever in the
   * background; commands issued before the first connection wait for it, commands issued while it
   * is lost fail fast (see `up`).
   */
  private constructor(
    readonly url: string,
    private readonly commandTimeoutMs: number,
    private readonly probeMs: number,
    readonly connect: () => Redis,
  ) {
    this.redis = connect();
    this.redis.on('error', (e: Error) => {
      this.lastError = e.message;
    });
    this.redis.on('ready', () => {
      this.wasReady = true;
      this.stopProbing();
      if (!this.lost) return;
      this.lost = false;
      this.emit(true, 'connection restored');
    });
    this.redis.on('close', () => {
      if (!this.wasReady || this.lost) return;
      this.lost = true;
      this.emit(false, this.lastError ?? 'connection closed');
    });
  }

  /** False once an established connection was lost, until it is back. */
  get up(): boolean {
    return !this.lost;
  }

  /** `listener` hears each loss and each return; the result stops it. */
  onChange(listener: LinkListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Runs `remote` while Redis is up, `local` while it is lost or when `remote` fails. */
  async either<T>(remote: () => Promise<T>, local: () => Promise<T>): Promise<T> {
    if (this.lost) return local();
    try {
      return await remote();
    } catch (e) {
      if (isTimeout(e)) this.stalled();
      return local();
    }
  }

  /**
   * A command timed out on a connection that stays open (a frozen Redis): lost as on a close, so
   * every later command falls back at once instead of waiting out its own timeout, until a PING
   * (about once a second) is answered in time.
   */
  private stalled(): void {
    if (!this.wasReady || this.lost) return;
    this.lost = true;
    this.emit(false, 'a command timed out');
    this.probe = setTimeout(this.ask, this.probeMs);
    this.probe.unref();
  }

  private readonly ask = (): void => {
    void (async () => {
      const answered = this.redis.status === 'ready' && (await settlesWithin(this.redis.ping(), this.commandTimeoutMs));
      // Stopped meanwhile: the connection came back through 'ready', which told the return.
      if (this.probe === undefined) return;
      if (!answered) {
        this.probe.refresh();
        return;
      }
      this.probe = undefined;
      this.lost = false;
      this.emit(true, 'answering again');
    })();
  };

  private stopProbing(): void {
    clearTimeout(this.probe);
    this.probe = undefined;
  }

  /** Resolves once connected; rejects with the first connection error or a TimeoutError. */
  connected(timeoutMs: number): Promise<void> {
    if (this.redis.status === 'ready') return Promise.resolve();
    const first = new Promise<void>((resolve, reject) => {
      this.redis.once('ready', resolve);
      this.redis.once('error', reject);
    });
    return within(first, timeoutMs);
  }

  /** Whether a PING is answered within `timeoutMs`. */
  async answers(timeoutMs: number): Promise<boolean> {
    if (this.lost || this.redis.status !== 'ready') return false;
    return settlesWithin(this.redis.ping(), timeoutMs);
  }

  /** Stops the probe (the connections are closed by their owner). */
  close(): void {
    this.stopProbing();
  }

  private emit(up: boolean, detail: string): void {
    for (const listener of this.listeners) listener(up, detail);
  }
}
