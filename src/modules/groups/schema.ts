import { Type } from 'typebox';
import { ChainParam, WalletParam } from '../../lib/schemas.js';
import { groupByShareUrl } from './address.js';

export const GroupInfoQuery = Type.Object(groupByShareUrl('group_invite_url'));
export const IsJoinQuery = Type.Object({ walletAddress: WalletParam, ...groupByShareUrl('url'), chain_id: ChainParam });

export const GroupInfo = Type.Object({
  is_charge: Type.Boolean(),
  subchannel_number: Type.Integer(),
  group_name: Type.String(),
  group_number: Type.Integer(),
  group_pic: Type.String(),
  create_time: Type.String({ description: 'YYYY-MM-DD HH:MM:SS' }),
  maximum: Type.String({ description: 'maximum number of members, numeric text' }),
  mod: Type.Array(Type.String(), { description: 'names of moderators' }),
});
export const MembershipCheck = Type.Object({ case3701: Type.Boolean() });
