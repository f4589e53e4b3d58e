// The access token of the Token-header user endpoints: the `access_token` header the seed names, or
// `Authorization: Bearer <token>` (RFC 6750 section 2.1), which standard OAuth clients send. Only
// these endpoints read it: the X-API-KEY and signed endpoints never look at Authorization.
import type { FastifyRequest } from 'fastify';
import { AppError, Errors } from '../../errors.js';
import { credentialsOf, withChallenge } from '../../http/authorization.js';

/**
 * RFC 6750 section 2.1's b64token. The header bypasses the app's input check (query and body
 * only), so this is what keeps U+0000, other controls and non-ASCII text out of the token.
 */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

// RFC 9110 section 15.5.2: a 401 names the scheme it wants.
const malformed = (why: string) =>
  new AppError(Errors.paramError, `Authorization: ${why}`, undefined, {
    'www-authenticate': 'Bearer error="invalid_request"',
  });

export interface PresentedToken {
  /** undefined: no token was sent (the seed's answer to that is -2015). */
  token: string | undefined;
  /** The token came as a Bearer credential, so a failure is answered with its challenge too. */
  bearer: boolean;
}

/** The token of an Authorization header of the Bearer scheme; undefined for none or another scheme. */
function bearerToken(header: string | undefined): string | undefined {
  const rest = credentialsOf(header, 'bearer');
  // Another scheme (a Basic proxy's, say) is no access token, and is ignored as before.
  if (rest === undefined) return undefined;
  const [token] = rest;
  // `Bearer ${token ?? ''}`, as clients build it: no token given.
  if (token === undefined) return undefined;
  if (rest.length > 1) throw malformed('Bearer needs one token');
  if (!B64TOKEN.test(token)) throw malformed('the Bearer token is not a b64token (RFC 6750 section 2.1)');
  return token;
}

/**
 * The access token a request presents: the seed's access_token header when given (a client that
 * sends it may carry an unrelated Authorization for a gateway in front, which is not read then),
 * else a Bearer credential. An empty access_token header is one not given, as it always failed alike.
 */
export function presentedToken(request: FastifyRequest): PresentedToken {
  const named = request.headers.access_token;
  const seed = Array.isArray(named) ? named[0] : named;
  if (seed !== undefined && seed !== '') return { token: seed, bearer: false };
  const bearer = bearerToken(request.headers.authorization);
  return bearer === undefined ? { token: seed, bearer: false } : { token: bearer, bearer: true };
}

/** RFC 6750 section 3: a token that failed is named in the challenge; the seed's answer is unchanged. */
export const challengingBearer = <T>(presented: PresentedToken, work: () => Promise<T>): Promise<T> =>
  withChallenge(
    presented.bearer,
    (def) => def === Errors.accessTokenInvalid || def === Errors.accessTokenExpired,
    'Bearer error="invalid_token"',
    work,
  );
