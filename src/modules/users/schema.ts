import { Type } from 'typebox';
import { ChainParam, INTEGER_COLUMN_MAX, Paging, WalletParam } from '../../lib/schemas.js';

export const PublicUser = Type.Object({
  name: Type.String(),
  wallet_address: Type.String(),
  avatar: Type.String(),
  uid: Type.String(),
});

/**
 * A user by id, or (decisions.md section 7) by wallet address on a chain. Empty text is taken (and
 * read as not given): SDKs send an unset field so, beside the one set.
 */
export const UserInfoQuery = Type.Object({
  user_id: Type.Optional(Type.String({ maxLength: 128, description: 'the user id; required unless address is given' })),
  address: Type.Optional(
    Type.String({
      maxLength: 128,
      description: "the user's wallet (EVM) address, compared case-insensitively, in place of user_id",
    }),
  ),
  chain_id: Type.Integer({
    minimum: 1,
    maximum: INTEGER_COLUMN_MAX,
    default: 1,
    description: 'the chain of address (default 1)',
  }),
});
export const FollowersQuery = Type.Object(Paging);
export const IsFollowQuery = Type.Object({
  walletAddress: WalletParam,
  followAddress: WalletParam,
  chain_id: ChainParam,
});
export const FollowCheck = Type.Object({ case3702: Type.Boolean() });
