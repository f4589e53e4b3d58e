import { AppError, Errors } from '../../errors.js';
import { USER_KEY_PREFIX, type Invalidations } from '../../lib/invalidation.js';
import { TtlCache } from '../../lib/ttl-lru.js';
import type { UserReads } from './reads.js';

export interface PublicUserView {
  name: string;
  wallet_address: string;
  avatar: string;
  uid: string;
}

export const publicView = (u: { user_id: string; name: string; wallet_address: string; avatar: string }) => ({
  name: u.name,
  wallet_address: u.wallet_address,
  avatar: u.avatar,
  uid: u.user_id,
});

export type UserRef = { userId: string } | { chainId: number; address: string };

type UserRecord = NonNullable<Awaited<ReturnType<UserReads['publicUser']['first']>>>;

const CACHE_TTL_MS = 10_000;

export class UsersService {
  /** Profiles read on every user-info call; dropped when an event changes them (on every instance). */
  private readonly cache: TtlCache<UserRecord>;

  constructor(
    private readonly reads: UserReads,
    invalidations: Invalidations,
    now: () => number,
  ) {
    this.cache = new TtlCache(CACHE_TTL_MS, 100_000, now);
    invalidations.listen(
      (key) => {
        if (key.startsWith(USER_KEY_PREFIX)) this.cache.delete(key.slice(USER_KEY_PREFIX.length));
      },
      () => {
        this.cache.clear();
      },
    );
  }

  /** A user's profile row, or undefined for an unknown user (never cached). */
  async record(userId: string): Promise<UserRecord | undefined> {
    return this.cache.getOrRead(userId, () => this.reads.publicUser.first([userId]));
  }

  /**
   * A user by id or (decisions.md section 7) by wallet; an unknown wallet is an unknown user.
   * Without a promise when the profile is cached by id (the user-info hot path).
   */
  publicInfo(user: UserRef): PublicUserView | Promise<PublicUserView> {
    const cached = 'userId' in user ? this.cache.get(user.userId) : undefined;
    return cached === undefined ? this.publicInfoRead(user) : publicView(cached);
  }

  private async publicInfoRead(user: UserRef): Promise<PublicUserView> {
    const userId = 'userId' in user ? user.userId : await this.userIdByWallet(user.chainId, user.address);
    const u = userId === undefined ? undefined : await this.record(userId);
    if (u === undefined) throw new AppError(Errors.unknownUser);
    return publicView(u);
  }

  /** The user holding a wallet on a chain; addresses compare case-insensitively. */
  async userIdByWallet(chainId: number, address: string): Promise<string | undefined> {
    return (await this.reads.userIdByWallet.first([chainId, address.trim().toLowerCase()]))?.user_id;
  }

  /** Followers newest first (decisions.md section 4). */
  async followers(userId: string, page: number, size: number): Promise<PublicUserView[]> {
    return (await this.reads.followers.all([userId, size, (page - 1) * size])).map(publicView);
  }

  /** Whether the first wallet follows the second; unknown wallets follow nobody. */
  async isFollow(chainId: number, followerAddress: string, followedAddress: string): Promise<boolean> {
    const [follower, followed] = [
      await this.userIdByWallet(chainId, followerAddress),
      await this.userIdByWallet(chainId, followedAddress),
    ];
    if (follower === undefined || followed === undefined) return false;
    return (await this.reads.isFollowing.first([follower, followed])) !== undefined;
  }

  async stats(userId: string | undefined) {
    return userId === undefined ? undefined : this.reads.stats.first([userId]);
  }
}
