// In-process stand-ins for what RedisBus uses of Redis: a server that hands each published message
// to the connections subscribed to its channel, connections a test loses and brings back (pub/sub
// keeps nothing: a message published while a subscriber is away is missed), and the link.
import { EventEmitter, once } from 'node:events';
import type { LinkListener } from '../../src/lib/redis-link.js';
import { RedisBus, type BusLink, type BusPublisher, type BusSubscriber } from '../../src/lib/shared-state.js';

export class FakeRedis {
  readonly subscribers = new Set<FakeSubscriber>();
  /** Every message Redis took, as `channel message`, in order. */
  readonly published: string[] = [];
  /** What happened, in order: subscriptions taking effect and whatever a test adds. */
  readonly log: string[] = [];
}

export class FakePublisher extends EventEmitter implements BusPublisher {
  up = true;
  constructor(private readonly redis: FakeRedis) {
    super();
  }
  publish(channel: string, message: string): Promise<number> {
    if (!this.up) return Promise.reject(new Error('connection lost'));
    this.redis.published.push(`${channel} ${message}`);
    this.emit('published');
    let heard = 0;
    for (const sub of this.redis.subscribers) if (sub.deliver(channel, message)) heard++;
    return Promise.resolve(heard);
  }
  /** Resolves once Redis took `n` messages in all (from any publisher). */
  async published(n: number): Promise<void> {
    while (this.redis.published.length < n) await once(this, 'published');
  }
  /** Reconnected. */
  ready(): void {
    this.up = true;
    this.emit('ready');
  }
  disconnect(): void {}
}

export class FakeSubscriber extends EventEmitter implements BusSubscriber {
  private up = true;
  private readonly channels = new Set<string>();
  /** The latest subscribe call's answer. */
  last: Promise<number> = Promise.resolve(0);
  constructor(
    private readonly name: string,
    private readonly redis: FakeRedis,
  ) {
    super();
    redis.subscribers.add(this);
  }
  subscribe(...channels: string[]): Promise<number> {
    this.last = this.up
      ? Promise.resolve().then(() => {
          for (const c of channels) this.channels.add(c);
          this.redis.log.push(`${this.name} subscribed ${channels.join(',')}`);
          return channels.length;
        })
      : Promise.reject(new Error('connection lost'));
    return this.last;
  }
  /** Whether the message reached this connection. */
  deliver(channel: string, message: string): boolean {
    if (!this.up || !this.channels.has(channel)) return false;
    this.emit('message', channel, message);
    return true;
  }
  /** The connection drops: the server forgets its subscriptions. */
  lose(): void {
    this.up = false;
    this.channels.clear();
  }
  /** Connected (again). */
  ready(): void {
    this.up = true;
    this.emit('ready');
  }
  disconnect(): void {}
}

export class FakeLink implements BusLink {
  private lost = false;
  private readonly listeners = new Set<LinkListener>();
  get up(): boolean {
    return !this.lost;
  }
  onChange(listener: LinkListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  lose(): void {
    this.lost = true;
    for (const listener of this.listeners) listener(false, 'connection lost');
  }
  back(): void {
    this.lost = false;
    for (const listener of this.listeners) listener(true, 'connection restored');
  }
}

/**
 * One instance's bus on `redis`, its subscriber connected and subscribed, and its publisher
 * connected (ready, as ioredis tells of a first connection too). No `bus:gap` has gone out: only
 * announceStart (a server that serves) sends one at start.
 */
export async function fakeInstance(redis: FakeRedis, name: string) {
  const link = new FakeLink();
  const pub = new FakePublisher(redis);
  const sub = new FakeSubscriber(name, redis);
  const bus = new RedisBus(link, pub, sub);
  sub.ready();
  await sub.last;
  pub.ready();
  // Whatever the publisher's ready would send has gone out by the next turn.
  await new Promise((resolve) => setImmediate(resolve));
  return { link, pub, sub, bus };
}
