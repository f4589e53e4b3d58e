import { Type } from 'typebox';
import { WalletOnChain } from '../../lib/schemas.js';
import { groupByShareUrl } from '../groups/index.js';

export const WalletQuery = Type.Object(WalletOnChain);
export const WalletInGroupQuery = Type.Object({ ...WalletOnChain, ...groupByShareUrl('group_invite_url') });
export const GroupQuery = Type.Object(groupByShareUrl('group_invite_url'));

export const VoteInfo = Type.Object({ vote_number: Type.Integer() });
export const LuckyDrawInfo = Type.Object({
  initiate_luckDraw_total: Type.Integer(),
  luckDraw_total: Type.Integer(),
  luckDraw_win_total: Type.Integer(),
});
export const LuckyBoxOfWallet = Type.Object({
  receive_luckyBox_number: Type.Integer(),
  receive_luckyBox_total: Type.Number(),
  send_luckyBox_number: Type.Integer(),
  send_luckyBox_total: Type.Number(),
});
export const LuckyBoxInGroup = Type.Object({ receive_luckyBox_number: Type.Integer() });
export const LuckyBoxOfGroup = Type.Object({ sum_amount: Type.Number(), total_num: Type.Integer() });
