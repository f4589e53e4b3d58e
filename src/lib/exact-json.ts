// JSON text in which bigint values are exact number literals (JSON.stringify refuses bigint, and
// a conversion to number would lose digits past 2^53). Readers that parse into doubles get the
// same value as before; readers with big-number parsing get every digit.

// A bigint is first written as a string holding this mark (JSON.stringify escapes the U+0000 as
// \u0000, which is what the pattern below matches), then the quotes and the mark are dropped.
const MARK = '\u0000bigint:';
const MARKED = /"\\u0000bigint:(-?\d+)"/g;

export const exactJson = (value: unknown, indent = 2): string =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${MARK}${v}` : v), indent).replace(
    MARKED,
    '$1',
  );
