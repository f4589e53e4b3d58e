// decisions.md section 7: older clients address a record by another key (a group by `gid` in place
// of its share URL, a user by wallet `address` in place of `user_id`). Exactly one of the two is given.
import { AppError, Errors } from '../../errors.js';

export type Given<A extends string, B extends string> = { field: A; value: string } | { field: B; value: string };

/**
 * The one field given of `primary` (the documented one, named when neither is given, as before)
 * and its `alternative`; both given is a parameter error too. Empty text counts as not given.
 */
export function exactlyOne<A extends string, B extends string>(
  primary: readonly [A, string | undefined],
  alternative: readonly [B, string | undefined],
): Given<A, B> {
  // Empty text is not given (decisions.md section 7): SDKs send an unset field so.
  const [a, aText] = primary;
  const [b, bText] = alternative;
  const [aValue, bValue] = [aText || undefined, bText || undefined];
  if (aValue !== undefined && bValue !== undefined) {
    throw new AppError(Errors.paramError, `querystring: give ${a} or ${b}, not both`);
  }
  if (aValue !== undefined) return { field: a, value: aValue };
  if (bValue !== undefined) return { field: b, value: bValue };
  throw new AppError(Errors.paramError, `querystring.${a}: required`);
}
