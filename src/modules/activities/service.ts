// Votes, lucky draws and lucky boxes as the read endpoints present them, all from counters.
import { centsToNumber } from '../../lib/money.js';
import type { GroupAddress, GroupsService } from '../groups/index.js';
import type { UsersService } from '../users/index.js';

export class ActivitiesService {
  constructor(
    private readonly users: UsersService,
    private readonly groups: GroupsService,
  ) {}

  async votes(chainId: number, wallet: string, group: GroupAddress) {
    return { vote_number: (await this.groups.activity(chainId, wallet, group)).votes };
  }

  async luckyDraws(chainId: number, wallet: string, group: GroupAddress) {
    const a = await this.groups.activity(chainId, wallet, group);
    return {
      initiate_luckDraw_total: a.draws_initiated,
      luckDraw_total: a.draws_entered,
      luckDraw_win_total: a.draws_won,
    };
  }

  async luckyBoxesOfWallet(chainId: number, wallet: string) {
    const s = await this.users.stats(await this.users.userIdByWallet(chainId, wallet));
    return {
      receive_luckyBox_number: s?.boxes_received ?? 0,
      receive_luckyBox_total: centsToNumber(s?.boxes_received_cents ?? 0),
      send_luckyBox_number: s?.boxes_sent ?? 0,
      send_luckyBox_total: centsToNumber(s?.boxes_sent_cents ?? 0),
    };
  }

  async luckyBoxesInGroup(chainId: number, wallet: string, group: GroupAddress) {
    return { receive_luckyBox_number: (await this.groups.activity(chainId, wallet, group)).boxes_received };
  }

  async luckyBoxesOfGroup(group: GroupAddress) {
    const g = await this.groups.find(group);
    return { sum_amount: centsToNumber(g.boxes_sent_cents), total_num: g.boxes_sent };
  }
}
