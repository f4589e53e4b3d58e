// Bot permissions: applications filed by developers (or the operator on their behalf) and the
// operator's review. Nothing is granted without approval.
import type { Db } from '../../db/connect.js';
import type { Kysely } from 'kysely';
import type { ApplicationStatus, DB, Permission } from '../../db/types.js';
import type { UnitOfWork, Work } from '../../db/work.js';
import { AppError, Errors } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { findUser } from '../users/index.js';
import * as repo from './repo.js';

export const PERMISSIONS: readonly Permission[] = ['listen_group_messages', 'subscription_account', 'publish_bot'];

export interface ApplicationView {
  id: string;
  bot_user_id: string;
  permission: Permission;
  status: ApplicationStatus;
  note: string | null;
  created_at: string;
  decided_at: string | null;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

const view = (a: Awaited<ReturnType<typeof repo.findApplication>> & object): ApplicationView => ({
  id: a.id,
  bot_user_id: a.bot_user_id,
  permission: a.permission,
  status: a.status,
  note: a.note,
  created_at: new Date(a.created_at).toISOString(),
  decided_at: iso(a.decided_at),
});

export class BotsService {
  constructor(
    private readonly db: Db,
    private readonly work: UnitOfWork,
  ) {}

  apply(botUserId: string, permission: Permission): Promise<ApplicationView> {
    return this.work.run((w) => this.applyIn(w, botUserId, permission));
  }

  async applyIn({ tx, now }: Work, botUserId: string, permission: Permission): Promise<ApplicationView> {
    const id = newId('pa');
    // Serialises applications per bot, so two racing requests cannot both find none pending.
    await repo.lockBot(tx, botUserId);
    if ((await repo.findBot(tx, botUserId)) === undefined) throw new AppError(Errors.unknownBot);
    if ((await repo.permissionsOf(tx, botUserId)).includes(permission)) throw new AppError(Errors.permissionHeld);
    if ((await repo.pendingApplication(tx, botUserId, permission)) !== undefined) {
      throw new AppError(Errors.applicationPending);
    }
    await repo.insertApplication(tx, { id, bot_user_id: botUserId, permission }, now);
    return view({
      id,
      bot_user_id: botUserId,
      permission,
      status: 'pending',
      note: null,
      created_at: now,
      decided_at: null,
    });
  }

  async list(
    filter: { status?: ApplicationStatus; botUserId?: string },
    q: Kysely<DB> = this.db.k,
  ): Promise<ApplicationView[]> {
    return (await repo.listApplications(q, filter)).map(view);
  }

  decide(id: string, decision: 'approved' | 'rejected', note: string | null): Promise<ApplicationView> {
    return this.work.run((w) => this.decideIn(w, id, decision, note));
  }

  /** As decide, inside the caller's write (the audit trail records it in the same transaction). */
  async decideIn(
    { tx, now }: Work,
    id: string,
    decision: 'approved' | 'rejected',
    note: string | null,
  ): Promise<ApplicationView> {
    const app = await repo.findApplication(tx, id);
    if (app === undefined) throw new AppError(Errors.unknownApplication);
    // As applyIn: an application filed meanwhile sees this decision (a permission granted) or waits.
    await repo.lockBot(tx, app.bot_user_id);
    if (!(await repo.decideApplication(tx, id, decision, note, now))) throw new AppError(Errors.applicationDecided);
    if (decision === 'approved') await repo.grantPermission(tx, app.bot_user_id, app.permission, now);
    return view({ ...app, status: decision, note, decided_at: now });
  }

  /** getMe: the bot as a user, with its level and EVM address. */
  async me(botUserId: string) {
    const [user, bot] = [await findUser(this.db.k, botUserId), await repo.findBot(this.db.k, botUserId)];
    if (user === undefined || bot === undefined) throw new AppError(Errors.unknownBot);
    return {
      user_id: user.user_id,
      name: user.name,
      address: bot.evm_address,
      pic: user.avatar,
      is_bot: true as const,
      level: user.level,
      language_code: 'en',
    };
  }
}
