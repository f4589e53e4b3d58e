// App Key -> credential, and app id -> credential for the calls that send the App Secret itself
// (token grants, transfers), cached in memory because they are read on every authenticated request.
// Entries are dropped when a key or secret is reset (here, or on another instance): the reset
// touches appKey(appId) and Invalidations brings it to every instance after the commit.
//
// Strangers choose the keys and ids they send, so nothing they send is kept as it came: valid keys
// and ids are cached under themselves (only ones that exist get there, so those caches cannot grow
// past the number of apps), failed look-ups under a hash in a small LRU.
import type { AppKind } from '../../db/types.js';
import { safeEqual, sha256Hex, type SecretBox } from '../../lib/crypto.js';
import { APP_KEY_PREFIX, type Invalidations } from '../../lib/invalidation.js';
import { TtlCache } from '../../lib/ttl-lru.js';
import type { AppReads, CredentialRow } from './repo.js';

export interface Credential {
  appId: string;
  kind: AppKind;
  ownerUserId: string;
  botUserId: string | null;
  /** Decrypted App Secret, for signature checks. */
  secret: string;
}

/** Issued keys are 35 characters (ids.ts); a longer one cannot match, so it is refused unread. */
export const MAX_API_KEY_LENGTH = 64;
/** Issued app ids are 20 characters (ids.ts); the same reasoning. */
const MAX_APP_ID_LENGTH = 64;
const MAX_VALID = 100_000;
const MAX_UNKNOWN = 10_000;
const NEGATIVE_TTL_MS = 5_000;
const POSITIVE_TTL_MS = 300_000;

export class CredentialStore {
  /** Raw key -> credential: a hit costs no hashing. */
  private readonly valid: TtlCache<Credential>;
  /** App id -> credential, for the App Secret checks: a hit costs no query and no decryption. */
  private readonly byId: TtlCache<Credential>;
  /** Hashes of keys and ids that matched no usable credential recently, so a flood of them spares the store. */
  private readonly unknown: TtlCache<true>;
  /**
   * Counts credential changes announced: a read that a change overtook (its answer may predate a
   * reset) is answered but not remembered, or the old secret would outlive its reset here.
   */
  private changes = 0;

  constructor(
    private readonly reads: AppReads,
    private readonly box: SecretBox,
    private readonly invalidations: Invalidations,
    now: () => number,
  ) {
    this.valid = new TtlCache(POSITIVE_TTL_MS, MAX_VALID, now, (c) => c.appId);
    this.byId = new TtlCache(POSITIVE_TTL_MS, MAX_VALID, now);
    this.unknown = new TtlCache(NEGATIVE_TTL_MS, MAX_UNKNOWN, now);
    invalidations.listen(
      (key) => {
        if (!key.startsWith(APP_KEY_PREFIX)) return;
        const appId = key.slice(APP_KEY_PREFIX.length);
        this.changes++;
        this.valid.deleteGroup(appId);
        this.byId.delete(appId);
      },
      () => {
        this.changes++;
        this.valid.clear();
        this.byId.clear();
        this.unknown.clear();
      },
    );
  }

  /** The credential of a key looked up recently, without a promise; undefined: ask byApiKey. */
  cached(apiKey: string): Credential | undefined {
    // While announcements may be missed (Redis lost), a reset on another instance would not drop
    // the entry: every use reads the store.
    return this.invalidations.cut ? undefined : this.valid.get(apiKey);
  }

  async byApiKey(apiKey: string): Promise<Credential | undefined> {
    const hit = this.cached(apiKey);
    if (hit !== undefined) return hit;
    if (apiKey.length > MAX_API_KEY_LENGTH) return undefined;
    const keyHash = sha256Hex(apiKey);
    return this.load(this.valid, apiKey, keyHash, () => this.reads.credentialByKeyHash.first([keyHash]));
  }

  /** The app's credential when `appSecret` is its App Secret (compared in constant time). */
  async byAppSecret(appId: string, appSecret: string): Promise<Credential | undefined> {
    let credential = this.invalidations.cut ? undefined : this.byId.get(appId);
    if (credential === undefined && appId.length <= MAX_APP_ID_LENGTH) {
      // Key misses are kept under bare hex, which never holds ':', so no App Key a stranger sends
      // can take the place of an id's miss and hide the app.
      const missKey = `id:${sha256Hex(appId)}`;
      credential = await this.load(this.byId, appId, missKey, () => this.reads.credentialByAppId.first([appId]));
    }
    return credential !== undefined && safeEqual(credential.secret, appSecret) ? credential : undefined;
  }

  /** Reads a credential the caches do not hold; remembers it under `raw`, or its absence under `missKey`. */
  private async load(
    cache: TtlCache<Credential>,
    raw: string,
    missKey: string,
    read: () => Promise<CredentialRow | undefined>,
  ): Promise<Credential | undefined> {
    if (this.unknown.has(missKey)) return undefined;
    const changes = this.changes;
    const row = await read();
    // Not kept while announcements may be missed, nor when a change overtook the read.
    const current = changes === this.changes && !this.invalidations.cut;
    if (row === undefined || row.disabled === 1) {
      if (current) this.unknown.set(missKey, true);
      return undefined;
    }
    const credential: Credential = {
      appId: row.app_id,
      kind: row.kind,
      ownerUserId: row.owner_user_id,
      botUserId: row.bot_user_id,
      secret: this.box.open(row.app_secret_enc),
    };
    if (current) cache.set(raw, credential);
    return credential;
  }
}
