// App Key -> credential, cached in memory because it is read on every authenticated request.
// Entries are dropped when a key or secret is reset (here, or on another instance): the reset
// touches appKey(appId) and Invalidations brings it to every instance after the commit.
import type { AppKind } from '../../db/types.js';
import { sha256Hex, type SecretBox } from '../../lib/crypto.js';
import { APP_KEY_PREFIX, type Invalidations } from '../../lib/invalidation.js';
import type { AppReads } from '../apps/repo.js';

export interface Credential {
  appId: string;
  kind: AppKind;
  ownerUserId: string;
  botUserId: string | null;
  /** Decrypted App Secret, for signature checks. */
  secret: string;
  keyHash: string;
}

const MAX_ENTRIES = 50_000;
const NEGATIVE_TTL_MS = 5_000;
const POSITIVE_TTL_MS = 300_000;

interface Entry {
  credential: Credential | undefined;
  expiresAt: number;
}

export class CredentialStore {
  private readonly cache = new Map<string, Entry>();

  constructor(
    private readonly reads: AppReads,
    private readonly box: SecretBox,
    invalidations: Invalidations,
    private readonly now: () => number,
  ) {
    invalidations.listen((key) => {
      if (key.startsWith(APP_KEY_PREFIX)) this.drop(key.slice(APP_KEY_PREFIX.length));
    });
  }

  async byApiKey(apiKey: string): Promise<Credential | undefined> {
    // Cached by the key itself, so a hit costs no hashing; the store is only ever asked by hash.
    const now = this.now();
    const hit = this.cache.get(apiKey);
    if (hit !== undefined && hit.expiresAt > now) return hit.credential;
    const keyHash = sha256Hex(apiKey);
    const row = await this.reads.credentialByKeyHash.first([keyHash]);
    const credential =
      row === undefined || row.disabled === 1
        ? undefined
        : {
            appId: row.app_id,
            kind: row.kind,
            ownerUserId: row.owner_user_id,
            botUserId: row.bot_user_id,
            secret: this.box.open(row.app_secret_enc),
            keyHash,
          };
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value ?? '');
    this.cache.set(apiKey, { credential, expiresAt: now + (credential ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS) });
    return credential;
  }

  private drop(appId: string): void {
    for (const [key, entry] of this.cache) {
      if (entry.credential?.appId === appId) this.cache.delete(key);
    }
  }
}
