// A bounded cache whose entries expire, on lru-cache: for reads served on every request whose
// source changes rarely and announces its changes (entries are dropped on change; the TTL bounds
// staleness where an announcement cannot arrive, e.g. several instances without Redis). The least
// recently used entry goes first when it is full, so a burst of one-off keys cannot push out the
// entries that are read all the time.
import { LRUCache } from 'lru-cache';

// lru-cache stores anything but null and undefined.
export class TtlCache<V extends object | string | number | boolean> extends LRUCache<string, V> {
  /**
   * The keys of each group, when entries are grouped (`groupOf`, e.g. the memberships of one
   * user): a change to the group drops just its entries, not a scan of the whole cache. An entry
   * leaves its group however it leaves the cache (dropped, replaced, evicted, expired).
   */
  private readonly groups: Map<string, Set<string>> | undefined;

  constructor(
    ttlMs: number,
    max: number,
    now: () => number,
    private readonly groupOf?: (value: V) => string,
  ) {
    const groups = groupOf === undefined ? undefined : new Map<string, Set<string>>();
    // ttlResolution 0: read the clock on each check (no timer per millisecond), so an injected
    // clock is honoured exactly. The bound is a total size of one per entry rather than `max`,
    // because `max` allocates every slot up front: the 100,000-entry caches would hold about 4 MB
    // each while empty.
    super({
      maxSize: max,
      sizeCalculation: () => 1,
      ttl: ttlMs,
      ttlResolution: 0,
      perf: { now },
      ...(groups !== undefined && groupOf !== undefined
        ? {
            dispose: (value: V, key: string) => {
              const group = groupOf(value);
              const keys = groups.get(group);
              keys?.delete(key);
              if (keys?.size === 0) groups.delete(group);
            },
          }
        : {}),
    });
    this.groups = groups;
  }

  override set(key: string, value: V | undefined, options?: LRUCache.SetOptions<string, V, unknown>): this {
    super.set(key, value, options);
    if (this.groups === undefined || this.groupOf === undefined || value === undefined || !this.has(key)) return this;
    const group = this.groupOf(value);
    const keys = this.groups.get(group);
    if (keys === undefined) this.groups.set(group, new Set([key]));
    else keys.add(key);
    return this;
  }

  /** Counts explicit drops (announced changes), so that a read that overlapped one is not cached. */
  private drops = 0;

  override delete(key: string): boolean {
    this.drops++;
    return super.delete(key);
  }

  override clear(): void {
    this.drops++;
    super.clear();
  }

  /**
   * The cached value of `key`, or what `read` finds (undefined: nothing, never cached). What it
   * finds is cached only if nothing was dropped while it read: a change announced meanwhile may
   * have been committed after the read saw the row, and caching the row would keep it until the TTL.
   */
  async getOrRead(
    key: string,
    read: () => Promise<V | undefined>,
    keep: (value: V) => boolean = () => true,
  ): Promise<V | undefined> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const drops = this.drops;
    const value = await read();
    if (value !== undefined && keep(value) && drops === this.drops) this.set(key, value);
    return value;
  }

  /** Drops every entry of `group` (see `groupOf`). */
  deleteGroup(group: string): void {
    const keys = this.groups?.get(group);
    if (keys === undefined) return;
    for (const key of [...keys]) this.delete(key);
  }
}
