// The credentials of an Authorization header (RFC 9110 section 11.6.2: a scheme, case-insensitive,
// then its credentials), for the OAuth endpoints that read more than one scheme.
import { AppError, type ErrorDef } from '../errors.js';

/**
 * The words after `scheme` in `header`, when the header is of that scheme; undefined for no header
 * or another scheme. Each caller decides what a count other than one means for its scheme.
 */
export function credentialsOf(header: string | undefined, scheme: string): string[] | undefined {
  if (header === undefined) return undefined;
  const [given = '', ...rest] = header.trim().split(/[ \t]+/);
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
