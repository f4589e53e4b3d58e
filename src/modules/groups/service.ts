import { AppError, Errors } from '../../errors.js';
import type { UsersService } from '../users/index.js';
import type { GroupAddress } from './address.js';
import { inviteUrlId } from './invite-url.js';
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

  /**
   * The group behind an address; unknown is an error, never an empty group. A share URL is matched
   * whole (as stored); failing that, by the group id its `id` parameter carries, whatever other
   * parameters the link has (decisions.md section 7).
   */
  async find(address: GroupAddress) {
    const group =
      'gid' in address
        ? await this.reads.byId.first([address.gid])
        : ((await this.reads.byInviteUrl.first([normalizeInviteUrl(address.url)])) ??
          (await this.byIdParameter(address.url)));
    if (group === undefined) throw new AppError(Errors.unknownGroup);
    return group;
  }

  private async byIdParameter(url: string) {
    const id = inviteUrlId(url);
    return id === undefined ? undefined : this.reads.byId.first([id]);
  }

  async info(address: GroupAddress): Promise<GroupInfoView> {
    const g = await this.find(address);
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

  async isMember(chainId: number, wallet: string, address: GroupAddress): Promise<boolean> {
    const group = await this.find(address);
    const userId = await this.users.userIdByWallet(chainId, wallet);
    return userId !== undefined && (await this.reads.isMember.first([group.group_id, userId])) !== undefined;
  }

  /** A wallet's counters inside a group; a wallet with no activity there has zeros. */
  async activity(chainId: number, wallet: string, address: GroupAddress) {
    const group = await this.find(address);
    const userId = await this.users.userIdByWallet(chainId, wallet);
    const row = userId === undefined ? undefined : await this.reads.userInGroup.first([userId, group.group_id]);
    return row ?? NO_ACTIVITY;
  }
}
