// Change announcements for in-memory caches: after a commit that changed cached data, the keys
// are dropped here at once and, through the bus, on every other instance.
import { randomUUID } from 'node:crypto';
import type { Bus } from './shared-state.js';

const CHANNEL = 'cache:changed';
/** Starts a message's first line, which names the instance that sent it; no key starts with it. */
const ORIGIN = '@';

export class Invalidations {
  private readonly listeners: ((key: string) => void)[] = [];
  private readonly clearers: (() => void)[] = [];
  private readonly origin = `${ORIGIN}${randomUUID()}`;

  constructor(private readonly bus: Bus) {
    bus.subscribe(CHANNEL, (message) => {
      const keys = message.split('\n');
      // This instance's own announcements come back through the bus; it heard them when it made them.
      if (keys[0] === this.origin) return;
      for (const key of keys) if (!key.startsWith(ORIGIN)) this.deliver(key);
    });
    // Announcements may have been missed (Redis lost for a while): any key may have changed, and a
    // cached entry would otherwise outlive its change by up to its TTL (5 minutes for credentials).
    bus.onGap(() => {
      for (const clear of this.clearers) clear();
    });
  }

  /**
   * `listener` hears every changed key (here and on other instances); `clear`, that announcements
   * may have been missed, so anything may have changed.
   */
  listen(listener: (key: string) => void, clear: () => void): void {
    this.listeners.push(listener);
    this.clearers.push(clear);
  }

  /** Announcements from other instances may be missed now (Redis lost): caches read through. */
  get cut(): boolean {
    return this.bus.cut;
  }

  announce(keys: readonly string[]): void {
    if (keys.length === 0) return;
    for (const key of keys) this.deliver(key);
    this.bus.publish(CHANNEL, `${this.origin}\n${keys.join('\n')}`);
  }

  private deliver(key: string): void {
    for (const listener of this.listeners) listener(key);
  }
}

/** Keys of changed things: a user's profile (level included), and one membership. */
export const USER_KEY_PREFIX = 'user:';
export const MEMBER_KEY_PREFIX = 'member:';
export const userKey = (userId: string): string => `${USER_KEY_PREFIX}${userId}`;
export const memberKey = (groupId: string, userId: string): string => `${MEMBER_KEY_PREFIX}${groupId}:${userId}`;
/** An app's credentials (key or secret reset): every instance forgets the cached credential. */
export const APP_KEY_PREFIX = 'app:';
export const appKey = (appId: string): string => `${APP_KEY_PREFIX}${appId}`;
/** A bot's App Key was reset: its held long polls end, on every instance, as an unauthorised call. */
export const KEY_RESET_PREFIX = 'key-reset:';
export const keyResetKey = (botUserId: string): string => `${KEY_RESET_PREFIX}${botUserId}`;
