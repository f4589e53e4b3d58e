// HTTP Basic client authentication at the token endpoints and revocation (RFC 6749 section 2.3.1,
// client_secret_basic): `Authorization: Basic base64(urlencode(client_id) ":" urlencode(client_secret))`,
// read as the app_id and app_secret the contract names. Only the Basic scheme is read: another
// (a Bearer token sent by habit) is no client authentication and is ignored, as before.
import type { FastifyRequest } from 'fastify';
import { AppError, Errors } from '../../errors.js';
import { credentialsOf, withChallenge } from '../../http/authorization.js';
import type { GivenParams } from '../../http/params.js';
import { faultOf, TEXT_FAULTS } from '../../lib/nul.js';

/** Where the credentials came from, as a Param error about them names it. */
const FROM = 'the Basic credentials of the Authorization header';
/** Base64 (RFC 4648 section 4), its padding optional. */
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

const malformed = (why: string) => new AppError(Errors.paramError, `Authorization: ${why}`);

/** RFC 6749 Appendix B: application/x-www-form-urlencoded, so `+` is a space. */
function formDecoded(text: string, name: string): string {
  let value: string;
  try {
    value = decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw malformed(`${name} is not valid percent-encoding`);
  }
  // The app's input check reads the query and the body only; PostgreSQL refuses U+0000 in text.
  const fault = faultOf(value);
  if (fault !== undefined) throw malformed(`${name}: ${TEXT_FAULTS[fault]}`);
  return value;
}

function decodedToken(token: string): string {
  const unpadded = token.replace(/=+$/, '');
  const padded = unpadded.length !== token.length;
  if (!BASE64.test(token) || unpadded.length % 4 === 1 || (padded && token.length % 4 !== 0))
    throw malformed('Basic credentials are not base64');
  try {
    return utf8.decode(Buffer.from(token, 'base64'));
  } catch {
    throw malformed('Basic credentials are not UTF-8');
  }
}

/**
 * The request's Basic credentials as app_id and app_secret, for the parameter reader (which
 * refuses an app_id, client_id, app_secret or client_secret parameter that differs); undefined
 * without an Authorization header of the Basic scheme. Malformed Basic credentials are a Param error.
 */
export function basicClient(request: FastifyRequest): GivenParams | undefined {
  const rest = credentialsOf(request.headers.authorization, 'basic');
  if (rest === undefined) return undefined;
  const [token] = rest;
  if (token === undefined || rest.length > 1) throw malformed('Basic needs one base64 token');
  const pair = decodedToken(token);
  const colon = pair.indexOf(':');
  if (colon < 0) throw malformed('Basic credentials need a colon between client_id and client_secret');
  return {
    from: FROM,
    params: {
      app_id: formDecoded(pair.slice(0, colon), 'client_id'),
      app_secret: formDecoded(pair.slice(colon + 1), 'client_secret'),
    },
  };
}

/**
 * RFC 6749 section 5.2: a client that authenticated through the Authorization header and failed
 * is answered 401 with WWW-Authenticate naming the scheme. The seed's body is unchanged.
 */
export const challengingBasic = <T>(basic: GivenParams | undefined, work: () => Promise<T>): Promise<T> =>
  withChallenge(
    basic !== undefined,
    (def) => def === Errors.badAppCredentials,
    'Basic realm="Open Platform", charset="UTF-8"',
    work,
  );
