// State that several instances must share: replay protection and wake-up messages. With one
// instance it lives in memory; with REDIS_URL it lives in Redis, and while Redis is lost each
// instance falls back to its memory (single-instance behaviour) until it returns. In Redis every
// key and channel starts with REDIS_PREFIX (empty by default), so platforms sharing one Redis
// (staging and production, test files run side by side) neither share nonces and buckets nor hear
// each other's messages and gaps.
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { CLOCK_SKEW_MS } from './clock.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './rate-limit.js';
import { RedisLink, type LinkTimings } from './redis-link.js';

export interface NonceStore {
  /**
   * Records the key (a digest, at least 7 bytes) until `expiresAt` (unix ms); false when it was
   * already recorded. A store that can answer at once (memory) answers without a promise.
   */
  claim(key: Buffer, expiresAt: number, now: number): boolean | Promise<boolean>;
  /** Forgets a key this instance claimed, for a request refused after its claim (a rate limit). */
  release(key: Buffer, expiresAt: number): void | Promise<void>;
}

/**
 * An open-addressing set of numbers in a typed array: millions of entries cost 16 bytes each and
 * nothing for the garbage collector to trace (a Set of strings would be rescanned on every GC).
 */
class NumberSet {
  private table: Float64Array;
  size = 0;

  /** Sized for `expected` keys up front, so a set filled at a steady rate is not rehashed on the way. */
  constructor(expected: number) {
    let length = 1024;
    while (length < expected * 2) length *= 2;
    this.table = new Float64Array(length);
  }

  /** Adds `k` (a positive integer below 2^53); false when it was present. */
  add(k: number): boolean {
    if ((this.size + 1) * 2 > this.table.length) this.grow();
    if (!NumberSet.put(this.table, k)) return false;
    this.size++;
    return true;
  }

  has(k: number): boolean {
    return this.table[NumberSet.slotOf(this.table, k)] === k;
  }

  /**
   * Removes `k`. Linear probing finds a key by walking from its home place to the first empty one,
   * so the keys after the gap in that run are shifted back into it where their walk passes it.
   */
  delete(k: number): void {
    const table = this.table;
    const mask = table.length - 1;
    let gap = NumberSet.slotOf(table, k);
    if (table[gap] !== k) return;
    for (let i = (gap + 1) & mask; ; i = (i + 1) & mask) {
      const at = table[i] ?? 0;
      if (at === 0) break;
      // `at` may fill the gap when the gap lies on its walk: from its home place up to i.
      const home = (at >>> 0) & mask;
      if (((i - home) & mask) >= ((i - gap) & mask)) {
        table[gap] = at;
        gap = i;
      }
    }
    table[gap] = 0;
    this.size--;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Float64Array(old.length * 2);
    for (const k of old) if (k !== 0) NumberSet.put(this.table, k);
  }

  private static put(table: Float64Array, k: number): boolean {
    const i = NumberSet.slotOf(table, k);
    if (table[i] === k) return false;
    table[i] = k;
    return true;
  }

  /** Where `k` is, or the empty place where it would go (the table is never more than half full). */
  private static slotOf(table: Float64Array, k: number): number {
    const mask = table.length - 1;
    // Keys are random (taken from a SHA1), so their low bits spread evenly.
    for (let i = (k >>> 0) & mask; ; i = (i + 1) & mask) {
      const at = table[i];
      if (at === k || at === 0 || at === undefined) return i;
    }
  }
}

/**
 * Keys grouped by the 10-second slot in which they expire: a key's expiry follows from its own
 * timestamp, so a claim looks in one slot only, and expired slots are dropped whole. Keys are
 * digests; their first 52 bits are kept (a false "already used" is about as likely as guessing
 * a 52-bit number).
 */
export class MemoryNonceStore implements NonceStore {
  private static readonly SLOT_MS = 10_000;
  private readonly slots = new Map<number, NumberSet>();
  /** The slot opened last: a new slot is sized for as many keys as it holds. */
  private newest: NumberSet | undefined;

  claim(key: Buffer, expiresAt: number, now: number): boolean {
    const slot = MemoryNonceStore.slotOf(expiresAt);
    let keys = this.slots.get(slot);
    if (keys === undefined) {
      this.dropExpired(now);
      keys = new NumberSet(this.newest?.size ?? 0);
      this.newest = keys;
      this.slots.set(slot, keys);
    }
    return keys.add(MemoryNonceStore.numberOf(key));
  }

  release(key: Buffer, expiresAt: number): void {
    this.slots.get(MemoryNonceStore.slotOf(expiresAt))?.delete(MemoryNonceStore.numberOf(key));
  }

  /**
   * Whether the key is recorded and not expired, recording nothing. Expired slots are dropped on
   * the way, so a store asked but no longer claimed from still empties.
   */
  has(key: Buffer, expiresAt: number, now: number): boolean {
    if (this.slots.size === 0) return false;
    this.dropExpired(now);
    return this.slots.get(MemoryNonceStore.slotOf(expiresAt))?.has(MemoryNonceStore.numberOf(key)) ?? false;
  }

  private static slotOf(expiresAt: number): number {
    return Math.floor(expiresAt / MemoryNonceStore.SLOT_MS);
  }

  private static numberOf(key: Buffer): number {
    const n = key.readUIntBE(0, 6) * 16 + (key.readUInt8(6) >> 4);
    return n === 0 ? 1 : n;
  }

  private dropExpired(now: number): void {
    for (const slot of this.slots.keys()) if ((slot + 1) * MemoryNonceStore.SLOT_MS <= now) this.slots.delete(slot);
  }
}

/** Keys `nonce:<hex>`, after the connection's keyPrefix (REDIS_PREFIX), which ioredis puts on. */
export class RedisNonceStore implements NonceStore {
  constructor(private readonly redis: Redis) {}
  async claim(key: Buffer, expiresAt: number, now: number): Promise<boolean> {
    // Kept a minute past this clock's expiry: an instance whose clock is behind still takes the
    // timestamp then, and would take a replay once the key was gone.
    const ttl = Math.max(1, expiresAt - now) + CLOCK_SKEW_MS;
    return (await this.redis.set(`nonce:${key.toString('hex')}`, '1', 'PX', ttl, 'NX')) === 'OK';
  }

  async release(key: Buffer): Promise<void> {
    await this.redis.del(`nonce:${key.toString('hex')}`);
  }
}

/** Redis while it answers, this instance's memory while it does not: `use` calls one or the other. */
function fallback<S>(link: RedisLink, remote: S, local: S) {
  return <R>(use: (store: S) => Promise<R>): Promise<R> =>
    link.either(
      () => use(remote),
      () => use(local),
    );
}

export type Listener = (message: string) => void;

/** The channel of gap announcements (see Bus.onGap). */
const GAP = 'bus:gap';

/** Publish/subscribe between instances (cache invalidation, long-poll wake-ups). */
export interface Bus {
  publish(channel: string, message: string): void;
  subscribe(channel: string, listener: Listener): () => void;
  /**
   * `listener` hears that messages may have been missed (by this instance, or by others from this
   * one): whoever relies on them must then assume anything changed. The result stops it.
   */
  onGap(listener: () => void): () => void;
  /**
   * Messages between instances may be missed now (Redis lost): caches fed by them must not be
   * trusted and waits on them must look for themselves. Never in one process.
   */
  readonly cut: boolean;
  /** `listener` hears each time the bus becomes cut; the result stops it. */
  onCut(listener: () => void): () => void;
  /**
   * Tells the other instances a gap: a previous run of this instance may have committed a write
   * and been killed before announcing it. Called by a server once it serves (src/server.ts), not
   * by every boot: a CLI command or a start that fails (a bad setting, crash-looping) would
   * otherwise flush every instance's caches and answer their held polls empty each time.
   */
  announceStart(): void;
  close(): Promise<void>;
}

export class LocalBus implements Bus {
  protected readonly emitter = new EventEmitter().setMaxListeners(0);
  publish(channel: string, message: string): void {
    this.emitter.emit(channel, message);
  }
  subscribe(channel: string, listener: Listener): () => void {
    this.emitter.on(channel, listener);
    return () => this.emitter.off(channel, listener);
  }
  /** One process's emitter misses nothing. */
  onGap(listener: () => void): () => void {
    return this.subscribe(GAP, listener);
  }
  get cut(): boolean {
    return false;
  }
  onCut(_listener: () => void): () => void {
    return () => undefined;
  }
  /** One process: no other instance kept anything a previous run could have left stale. */
  announceStart(): void {}
  close(): Promise<void> {
    this.emitter.removeAllListeners();
    return Promise.resolve();
  }
}

/** What RedisBus uses of its publishing connection (an ioredis client). */
export interface BusPublisher {
  publish(channel: string, message: string): Promise<unknown>;
  on(event: 'ready', listener: () => void): unknown;
  disconnect(): void;
}

/** What RedisBus uses of its subscribing connection (an ioredis client in subscriber mode). */
export interface BusSubscriber {
  subscribe(...channels: string[]): Promise<unknown>;
  on(event: 'ready', listener: () => void): unknown;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  disconnect(): void;
}

/** What RedisBus uses of the link: whether Redis is up to publish through, and when it is back. */
export type BusLink = Pick<RedisLink, 'onChange' | 'up'>;

/**
 * Every message goes through Redis, so this instance hears its own messages exactly once too.
 * While Redis is lost, messages reach this instance's listeners only. Pub/sub keeps nothing, so
 * the gaps a loss leaves are told to `onGap` listeners: here once the subscriber is back (what
 * others published meanwhile was not heard), and on every instance (through Redis, as a `bus:gap`
 * message) once a message that reached only this one can be followed by it, and once when a
 * server starts to serve (announceStart: what a killed run committed may never have been announced).
 *
 * In Redis every channel, `bus:gap` too, is `prefix` followed by the name listeners use: Redis
 * channels are global (no database number separates them) and ioredis's keyPrefix leaves them
 * alone, so the bus puts the prefix on and takes it off itself. A message on a channel outside the
 * prefix never reaches a listener.
 */
export class RedisBus extends LocalBus {
  private readonly subscribed = new Set<string>([GAP]);
  /** The subscriber was ready once: a later ready follows a loss. */
  private listened = false;
  /**
   * A message reached this instance only and no `bus:gap` has gone out since. Cleared before the
   * gap is published and set again only if that fails, so a message kept local meanwhile (which
   * sets it too) is never covered by a gap sent before it.
   *
   * False at construction: every boot makes a bus (CLI commands, a start that then fails on a
   * migration or the encryption key), and only a server that serves tells the others a start-up
   * gap, through announceStart.
   */
  private unsent = false;
  constructor(
    private readonly link: BusLink,
    private readonly pub: BusPublisher,
    private readonly sub: BusSubscriber,
    private readonly prefix = '',
  ) {
    super();
    sub.on('message', (channel, message) => {
      if (channel.startsWith(prefix)) this.emitter.emit(channel.slice(prefix.length), message);
    });
    sub.subscribe(prefix + GAP).catch(() => undefined);
    // A subscription asked for while Redis was away failed; ask again each time it is back. The
    // gap is told once the subscription holds, so nothing published after its listeners cleared
    // their caches can be missed too.
    sub.on('ready', () => {
      const afterLoss = this.listened;
      this.listened = true;
      // After a loss the gap is told whether or not the subscription holds (a slow SUBSCRIBE times
      // out): caches that missed announcements must forget either way.
      const told = () => {
        if (afterLoss) this.emitter.emit(GAP, '');
      };
      this.sub.subscribe(...[...this.subscribed].map((channel) => this.prefix + channel)).then(told, told);
    });
    // Either connection may be the one that was lost (publish falls back on the link's loss, or on
    // a failed publish): tell the others as soon as either is back, not only with the next message.
    pub.on('ready', () => {
      this.announceGap();
    });
    link.onChange((up) => {
      if (!up) return;
      // Whatever others announced while the link was lost may not have reached this instance (a
      // frozen Redis drops no connection, so no subscriber ready tells it): its caches forget now,
      // not only when another instance's own gap arrives, up to a probe interval later.
      this.emitter.emit(GAP, '');
      this.announceGap();
    });
  }

  /** Publishes `bus:gap` if a message reached this instance only; the next publish retries a failure. */
  private announceGap(): void {
    void this.sendGap().catch(() => undefined);
  }

  private async sendGap(): Promise<void> {
    if (!this.unsent) return;
    this.unsent = false;
    try {
      await this.pub.publish(this.prefix + GAP, '');
    } catch (e) {
      this.unsent = true;
      throw e;
    }
  }

  /**
   * A previous run of this instance may have committed a write and been killed before its
   * announcement went out, and nothing else would ever tell the others: one gap (others' caches
   * forget, their held polls are answered empty and called again). If it cannot go out now, the
   * publisher's next ready or the next publish sends it.
   */
  override announceStart(): void {
    this.unsent = true;
    this.announceGap();
  }

  override publish(channel: string, message: string): void {
    const local = () => {
      this.unsent = true;
      super.publish(channel, message);
    };
    if (!this.link.up) {
      local();
      return;
    }
    // Not through link.either: a publish that times out tells of the publishing connection, not
    // of the link (whose probe asks another connection), so it falls back without marking the
    // link lost, which would only come back a second later and be lost again at the next publish.
    void (async () => {
      try {
        // Sent on the same connection before the message, so no instance hears one without the other.
        await this.sendGap();
        await this.pub.publish(this.prefix + channel, message);
      } catch {
        local();
      }
    })();
  }
  /** While the link is lost, messages reach this instance only and others' do not reach it. */
  override get cut(): boolean {
    return !this.link.up;
  }
  override onCut(listener: () => void): () => void {
    return this.link.onChange((up) => {
      if (!up) listener();
    });
  }
  override subscribe(channel: string, listener: Listener): () => void {
    if (!this.subscribed.has(channel)) {
      this.subscribed.add(channel);
      this.sub.subscribe(this.prefix + channel).catch(() => undefined);
    }
    return super.subscribe(channel, listener);
  }
  override async close(): Promise<void> {
    await super.close();
    this.sub.disconnect();
    this.pub.disconnect();
  }
}

export interface SharedState {
  nonces: NonceStore;
  limiter: RateLimiter;
  bus: Bus;
  /** The connection to Redis; undefined without REDIS_URL. */
  redis: RedisLink | undefined;
  close(): Promise<void>;
}

/** This instance's memory only: the state without REDIS_URL. */
export function localSharedState(): SharedState {
  const bus = new LocalBus();
  return {
    nonces: new MemoryNonceStore(),
    limiter: new MemoryRateLimiter(),
    bus,
    redis: undefined,
    close: () => bus.close(),
  };
}

/** How the shared state opens Redis: the link's waits, and the namespace of its keys and channels. */
export interface SharedStateOptions extends LinkTimings {
  /** REDIS_PREFIX: put before every key and channel; instances of one platform share it. */
  prefix?: string;
}

/**
 * In memory without `redisUrl`; otherwise in Redis (ioredis is loaded only then, see RedisLink.open),
 * with every key (`nonce:`, `rl:`) and channel under `prefix`: the keys through ioredis's keyPrefix
 * on every connection, the channels through RedisBus.
 */
export async function openSharedState(
  redisUrl: string | undefined,
  options: SharedStateOptions = {},
): Promise<SharedState> {
  if (redisUrl === undefined) return localSharedState();
  const { prefix = '', ...timings } = options;
  const link = await RedisLink.open(redisUrl, { ...timings, keyPrefix: prefix });
  const bus = new RedisBus(link, link.connect(), link.connect(), prefix);
  const inMemory = new MemoryNonceStore();
  // A key claimed in memory while Redis was lost is unknown to Redis: memory refuses it until it
  // expires. Nothing new is recorded there while Redis answers, so it empties.
  const remote = new RedisNonceStore(link.redis);
  const nonces = fallback<NonceStore>(
    link,
    {
      claim: (key, expiresAt, now) => !inMemory.has(key, expiresAt, now) && remote.claim(key, expiresAt, now),
      release: (key) => remote.release(key),
    },
    inMemory,
  );
  // A claim is given back to the store that took it, whichever answers when it is given back.
  const claimedIn = new WeakMap<Buffer, NonceStore>();
  const limiter = fallback<RateLimiter>(link, new RedisRateLimiter(link.redis), new MemoryRateLimiter());
  return {
    nonces: {
      claim: (key, expiresAt, now) =>
        nonces((store) => {
          claimedIn.set(key, store);
          return Promise.resolve(store.claim(key, expiresAt, now));
        }),
      release: (key, expiresAt) => claimedIn.get(key)?.release(key, expiresAt),
    },
    limiter: {
      take: (claims, now) => limiter((store) => Promise.resolve(store.take(claims, now))),
      peek: (key, bucket, now) => limiter((store) => Promise.resolve(store.peek(key, bucket, now))),
    },
    bus,
    redis: link,
    close: async () => {
      await bus.close();
      link.close();
      link.redis.disconnect();
    },
  };
}
