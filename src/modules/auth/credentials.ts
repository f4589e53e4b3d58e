// App Key -> credential, cached in memory because it is read on every authenticated request.
// Entries are dropped when a key or secret is reset (here, or on another instance): the reset
// touches appKey(appId) and Invalidations brings it to every instance after the commit.
//
// Strangers choose the keys they send, so nothing they send is kept as it came: valid keys are
// cached under the key itself (only keys that exist get there, so that cache cannot grow past the
// number of keys), failed look-ups under the key's hash in a small LRU.
import type { AppKind } from '../../db/types.js';
import { sha256Hex, type SecretBox } from '../../lib/crypto.js';
import { APP_KEY_PREFIX, type Invalidations } from '../../lib/invalidation.js';
import { TtlCache } from '../../lib/ttl-lru.js';
import type { AppReads } from './repo.js';

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
const MAX_VALID = 100_000;
const MAX_UNKNOWN = 10_000;
const NEGATIVE_TTL_MS = 5_000;
const POSITIVE_TTL_MS = 300_000;

export class CredentialStore {
  /** Raw key -> credential: a hit costs no hashing. */
  private readonly valid: TtlCache<Credential>;
  /** Key hashes that matched no usable credential recently, so a flood of them spares the store. */
  private readonly unknown: TtlCache<true>;

  constructor(
    private readonly reads: AppReads,
    private readonly box: SecretBox,
    invalidations: Invalidations,
    now: () => number,
  ) {
    this.valid = new TtlCache(POSITIVE_TTL_MS, MAX_VALID, now);
    this.unknown = new TtlCache(NEGATIVE_TTL_MS, MAX_UNKNOWN, now);
    invalidations.listen((key) => {
      if (!key.startsWith(APP_KEY_PREFIX)) return;
      const appId = key.slice(APP_KEY_PREFIX.length);
      this.valid.deleteWhere((c) => c.appId === appId);
    });
  }

  /** The credential of a key looked up recently, without a promise; undefined: ask byApiKey. */
  cached(apiKey: string): Credential | undefined {
    return this.valid.get(apiKey);
  }

  async byApiKey(apiKey: string): Promise<Credential | undefined> {
    const hit = this.valid.get(apiKey);
    if (hit !== undefined) return hit;
    if (apiKey.length > MAX_API_KEY_LENGTH) return undefined;
    const keyHash = sha256Hex(apiKey);
    if (this.unknown.has(keyHash)) return undefined;
    const row = await this.reads.credentialByKeyHash.first([keyHash]);
    if (row === undefined || row.disabled === 1) {
      this.unknown.set(keyHash, true);
      return undefined;
    }
    const credential: Credential = {
      appId: row.app_id,
      kind: row.kind,
      ownerUserId: row.owner_user_id,
      botUserId: row.bot_user_id,
      secret: this.box.open(row.app_secret_enc),
    };
    this.valid.set(apiKey, credential);
    return credential;
  }
}
