// A bounded cache whose entries expire, on lru-cache: for reads served on every request whose
// source changes rarely and announces its changes (entries are dropped on change; the TTL bounds
// staleness where an announcement cannot arrive, e.g. several instances without Redis). The least
// recently used entry goes first when it is full, so a burst of one-off keys cannot push out the
// entries that are read all the time.
import { LRUCache } from 'lru-cache';

// lru-cache stores anything but null and undefined.
export class TtlCache<V extends object | string | number | boolean> extends LRUCache<string, V> {
  constructor(ttlMs: number, max: number, now: () => number) {
    // ttlResolution 0: read the clock on each check (no timer per millisecond), so an injected
    // clock is honoured exactly. The bound is a total size of one per entry rather than `max`,
    // because `max` allocates every slot up front: the 100,000-entry caches would hold about 4 MB
    // each while empty.
    super({ maxSize: max, sizeCalculation: () => 1, ttl: ttlMs, ttlResolution: 0, perf: { now } });
  }

  /** Drops every entry whose value matches. */
  deleteWhere(match: (value: V) => boolean): void {
    const doomed: string[] = [];
    for (const [key, value] of this.entries()) if (match(value)) doomed.push(key);
    for (const key of doomed) this.delete(key);
  }
}
