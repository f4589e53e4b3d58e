// Points are integer hundredths everywhere inside; decimal text only at the edges.

const AMOUNT = /^(0|[1-9]\d{0,12})(\.\d{1,2})?$/;

/** Parses "12.5", "0.01" or the number 12.5 into hundredths; undefined if not a valid amount >= 0. */
export function toCents(value: string | number): number | undefined {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  const m = AMOUNT.exec(text);
  if (m === null) return undefined;
  const whole = Number(m[1]);
  const frac = (m[2] ?? '.').slice(1).padEnd(2, '0');
  return whole * 100 + Number(frac);
}

/**
 * 1234 -> "12.34", 1200 -> "12", 1250 -> "12.5": the shortest exact decimal text. Balances and
 * sums come as bigint (they may pass 2^53 hundredths, where a number would lose a cent).
 */
export function formatCents(cents: number | bigint): string {
  const value = BigInt(cents);
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  const whole = abs / 100n;
  const frac = abs % 100n;
  if (frac === 0n) return `${sign}${whole}`;
  return `${sign}${whole}.${String(frac).padStart(2, '0').replace(/0$/, '')}`;
}

/** A JSON number that equals the decimal exactly as far as two decimals allow (12.34, 0.1). */
export const centsToNumber = (cents: number): number => Number(formatCents(cents));
