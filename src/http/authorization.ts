// The credentials of an Authorization header (RFC 9110 section 11.6.2: a scheme, case-insensitive,
// then its credentials), the one reading of it: the OAuth endpoints' Bearer and Basic, and the
// operator's bearer token.
import { AppError, type ErrorDef } from '../errors.js';

/** HTTP's optional whitespace around a field value (RFC 9110 section 5.6.3): spaces and tabs only. */
const OWS_AROUND = /^[ \t]+|[ \t]+$/g;

/**
 * The words after `scheme` (lower case) in `header`, when the header is of that scheme; undefined
 * for no header or another scheme. The scheme is case-insensitive and is parted from its
 * credentials, and they from each other, by one or more ASCII spaces (RFC 6750 section 2.1, RFC
 * 7617 section 2: `1*SP`); no other whitespace (a tab, U+00A0) parts words. Each caller decides
 * what a count other than one means for its scheme.
 */
export function credentialsOf(header: string | undefined, scheme: string): string[] | undefined {
  if (header === undefined) return undefined;
  const [given = '', ...rest] = header.replace(OWS_AROUND, '').split(/ +/);
  return given.toLowerCase() === scheme ? rest : undefined;
}

/**
 * Runs `work`; when it fails with an error `refused` names and the client authenticated through
 * the header (`active`), the same answer is sent with WWW-Authenticate naming the scheme (RFC 9110
 * section 11.6.1). The body is unchanged.
 */
export async function withChallenge<T>(
  active: boolean,
  refused: (def: ErrorDef) => boolean,
  challenge: string,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (!active || !(e instanceof AppError) || !refused(e.def)) throw e;
    throw new AppError(e.def, e.detail, e.extra, { ...e.headers, 'www-authenticate': challenge });
  }
}
