// Schema fragments shared by several modules.
import { Type } from 'typebox';

export const Id = Type.String({ minLength: 1, maxLength: 128 });
export const OptionalText = (maxLength = 2048) => Type.Optional(Type.String({ maxLength }));
export const ChainId = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
/** Decimal text or number with at most two decimals; the range is checked by toCents. */
export const Amount = Type.Union([
  Type.String({ pattern: '^\\s*\\d+(\\.\\d{1,2})?\\s*$', maxLength: 20 }),
  Type.Number({ minimum: 0 }),
]);
export const DateTimeText = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' });
