import { Type } from 'typebox';
import { ChainParam, Paging, WalletOnChain, WalletParam } from '../../lib/schemas.js';
import { PublicUser } from '../users/index.js';

const MomentId = Type.String({ minLength: 1, maxLength: 128 });

export const PraiseInfoQuery = Type.Object(WalletOnChain);
export const GivePraiseQuery = Type.Object({ ...WalletOnChain, moment_id: MomentId });
export const ReceivePraiseQuery = Type.Object({
  moment_id: MomentId,
  wallet_address: Type.Optional(WalletParam),
  chain_id: ChainParam,
  ...Paging,
});

export const PraiseSummary = Type.Object({ receive_praise_total: Type.Integer(), send_praise_total: Type.Integer() });
export const PraiseCheck = Type.Object({ is_praise: Type.Boolean() });
export const MomentLikes = Type.Object({
  receive_praise_total: Type.Integer(),
  praise_users: Type.Array(PublicUser, { description: 'likers, newest first, paged by page and size' }),
});
