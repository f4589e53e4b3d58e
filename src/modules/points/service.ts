import type { Db } from '../../db/connect.js';
import { AppError, Errors } from '../../errors.js';
import { formatCents } from '../../lib/money.js';
import { usersExist } from '../users/index.js';
import { balanceOf, checkLedger, type LedgerCheck } from './repo.js';

export class PointsService {
  constructor(private readonly db: Db) {}

  async balance(userId: string): Promise<{ user_id: string; balance: string }> {
    if (!(await usersExist(this.db.k, [userId]))) throw new AppError(Errors.unknownUser);
    return { user_id: userId, balance: formatCents(await balanceOf(this.db.k, userId)) };
  }

  check(): Promise<LedgerCheck> {
    return checkLedger(this.db.k);
  }
}
