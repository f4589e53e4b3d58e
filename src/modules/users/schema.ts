import { Type } from 'typebox';
import { ChainParam, Paging, WalletParam } from '../../lib/schemas.js';

export const PublicUser = Type.Object({
  name: Type.String(),
  wallet_address: Type.String(),
  avatar: Type.String(),
  uid: Type.String(),
});

export const UserIdQuery = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 128 }) });
export const FollowersQuery = Type.Object(Paging);
export const IsFollowQuery = Type.Object({
  walletAddress: WalletParam,
  followAddress: WalletParam,
  chain_id: ChainParam,
});
export const FollowCheck = Type.Object({ case3702: Type.Boolean() });
