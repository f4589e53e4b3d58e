import { AppError, Errors } from '../../errors.js';
import type { UserReads } from './repo.js';

export interface PublicUserView {
  name: string;
  wallet_address: string;
  avatar: string;
  uid: string;
}

export class UsersService {
  constructor(private readonly reads: UserReads) {}

  async publicInfo(userId: string): Promise<PublicUserView> {
    const u = await this.reads.publicUser.first([userId]);
    if (u === undefined) throw new AppError(Errors.unknownUser);
    return { name: u.name, wallet_address: u.wallet_address, avatar: u.avatar, uid: u.user_id };
  }
}
