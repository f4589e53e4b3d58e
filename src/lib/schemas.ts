// Schema fragments shared by several modules.
import { Type } from 'typebox';

/** The largest value of an `integer` column on both stores (PostgreSQL's is 32-bit, SQLite's wider). */
export const INTEGER_COLUMN_MAX = 2_147_483_647;

export const Id = Type.String({ minLength: 1, maxLength: 128 });
export const OptionalText = (maxLength = 2048) => Type.Optional(Type.String({ maxLength }));
export const ChainId = Type.Integer({ minimum: 1, maximum: INTEGER_COLUMN_MAX });
/** Decimal text or number with at most two decimals; the exact range is checked by toCents. */
export const Amount = Type.Union([
  Type.String({ pattern: '^\\s*\\d+(\\.\\d{1,2})?\\s*$', maxLength: 20 }),
  Type.Number({ minimum: 0, maximum: 9_999_999_999_999.99 }),
]);
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether "YYYY-MM-DD HH:MM:SS" names a day of the calendar and a time of the clock (not 02-30 25:61). */
function isDateTimeText(text: string): boolean {
  const parts = DATE_TIME.exec(text)?.slice(1).map(Number);
  if (parts === undefined) return false;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = parts;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
  return day >= 1 && day <= days && hour <= 23 && minute <= 59 && second <= 59;
}

export const DateTimeText = Type.Refine(
  Type.String({ pattern: DATE_TIME.source }),
  isDateTimeText,
  () => 'must be a real date and time, YYYY-MM-DD HH:MM:SS',
);

/** Query fragments of the read endpoints. */
export const WalletParam = Type.String({ minLength: 1, maxLength: 128 });
export const ChainParam = Type.Integer({ minimum: 1, maximum: INTEGER_COLUMN_MAX, default: 1 });
/** A wallet address on a chain (chain 1 unless given). */
export const WalletOnChain = { wallet_address: WalletParam, chain_id: ChainParam };
/** decisions.md section 4: page from 1, size 1 to 100 (default 20). */
export const Paging = {
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  size: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
};
