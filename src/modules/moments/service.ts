import { AppError, Errors } from '../../errors.js';
import { type PublicUserView, publicView, type UsersService } from '../users/index.js';
import type { MomentReads } from './reads.js';

export class MomentsService {
  constructor(
    private readonly reads: MomentReads,
    private readonly users: UsersService,
  ) {}

  private async likeCount(momentId: string): Promise<number> {
    const m = await this.reads.likeCount.first([momentId]);
    if (m === undefined) throw new AppError(Errors.unknownMoment);
    return m.like_count;
  }

  /** Likes a wallet's moments received and likes it gave; a wallet with no activity has zeros. */
  async praiseInfo(chainId: number, wallet: string) {
    const stats = await this.users.stats(await this.users.userIdByWallet(chainId, wallet));
    return { receive_praise_total: stats?.likes_received ?? 0, send_praise_total: stats?.likes_given ?? 0 };
  }

  async givePraise(chainId: number, wallet: string, momentId: string): Promise<{ is_praise: boolean }> {
    await this.likeCount(momentId);
    const userId = await this.users.userIdByWallet(chainId, wallet);
    const liked = userId !== undefined && (await this.reads.hasLiked.first([momentId, userId])) !== undefined;
    return { is_praise: liked };
  }

  async receivePraise(
    momentId: string,
    page: number,
    size: number,
  ): Promise<{ receive_praise_total: number; praise_users: PublicUserView[] }> {
    const total = await this.likeCount(momentId);
    const likers = await this.reads.likers.all([momentId, size, (page - 1) * size]);
    return { receive_praise_total: total, praise_users: likers.map(publicView) };
  }
}
