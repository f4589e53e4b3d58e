// Schema fragments shared by several modules.
import { Type } from 'typebox';

export const Id = Type.String({ minLength: 1, maxLength: 128 });
export const OptionalText = (maxLength = 2048) => Type.Optional(Type.String({ maxLength }));
export const ChainId = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
/** Decimal text or number with at most two decimals; the exact range is checked by toCents. */
export const Amount = Type.Union([
  Type.String({ pattern: '^\\s*\\d+(\\.\\d{1,2})?\\s*$', maxLength: 20 }),
  Type.Number({ minimum: 0, maximum: 9_999_999_999_999.99 }),
]);
export const DateTimeText = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' });

/** Query fragments of the read endpoints. */
export const WalletParam = Type.String({ minLength: 1, maxLength: 128 });
export const ChainParam = Type.Integer({ minimum: 1, maximum: 2_147_483_647, default: 1 });
/** A wallet address on a chain (chain 1 unless given). */
export const WalletOnChain = { wallet_address: WalletParam, chain_id: ChainParam };
export const InviteUrlParam = Type.String({ minLength: 1, maxLength: 1024 });
/** decisions.md section 4: page from 1, size 1 to 100 (default 20). */
export const Paging = {
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  size: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
};
