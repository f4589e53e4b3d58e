import { AppError, Errors } from '../../errors.js';
import type { UsersService } from '../users/service.js';
import { normalizeInviteUrl } from './repo.js';
import type { GroupReads } from './reads.js';

export interface GroupInfoView {
  is_charge: boolean;
  subchannel_number: number;
  group_name: string;
  group_number: number;
  group_pic: string;
  create_time: string;
  maximum: string;
  mod: string[];
}

const NO_ACTIVITY = { votes: 0, draws_initiated: 0, draws_entered: 0, draws_won: 0, boxes_received: 0 };

export class GroupsService {
  constructor(
    private readonly reads: GroupReads,
    private readonly users: UsersService,
  ) {}

  /** The group behind a share URL; an unknown URL is an error, never an empty group. */
  async byUrl(url: string) {
    const group = await this.reads.byInviteUrl.first([normalizeInviteUrl(url)]);
    if (group === undefined) throw new AppError(Errors.unknownGroup);
    return group;
  }

  async info(url: string): Promise<GroupInfoView> {
    const g = await this.byUrl(url);
    const mods = await this.reads.moderatorNames.all([g.group_id]);
    return {
      is_charge: g.is_charge === 1,
      subchannel_number: g.subchannel_number,
      group_name: g.name,
      group_number: g.member_count,
      group_pic: g.pic,
      create_time: g.created_at,
      maximum: String(g.maximum),
      mod: mods.map((m) => m.name),
    };
  }

  async isMember(chainId: number, wallet: string, url: string): Promise<boolean> {
    const group = await this.byUrl(url);
    const userId = await this.users.userIdByWallet(chainId, wallet);
    return userId !== undefined && (await this.reads.isMember.first([group.group_id, userId])) !== undefined;
  }

  /** A wallet's counters inside a group; a wallet with no activity there has zeros. */
  async activity(chainId: number, wallet: string, url: string) {
    const group = await this.byUrl(url);
    const userId = await this.users.userIdByWallet(chainId, wallet);
    const row = userId === undefined ? undefined : await this.reads.userInGroup.first([userId, group.group_id]);
    return row ?? NO_ACTIVITY;
  }
}
