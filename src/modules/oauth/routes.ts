// Token endpoints of the login flow (with revocation, RFC 7009) and the Token-header user endpoints.
import type { FastifyRequest } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';
import { AppError, Errors } from '../../errors.js';
import { apiErrors, Envelope, ok } from '../../http/envelope.js';
import { noStore } from '../../http/no-store.js';
import { requestParam, requestParams } from '../../http/params.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import type { TokenRecord } from './service.js';
import { PublicUser, publicView } from '../users/index.js';
import { challengingBearer, presentedToken } from './bearer.js';
import { basicClient, challengingBasic } from './client-basic.js';
import { serverMetadataRoute } from './metadata.js';
import {
  AccessTokenParams,
  CLIENT_ALIASES,
  LoginFailure,
  RefreshTokenParams,
  RevokeParams,
  TokenEndpointParams,
  TokenFollowersQuery,
  TokenHeaders,
  TokenAnswer,
  TokenUserQuery,
  UserWithLevel,
} from './schema.js';

const tags = ['Authorization login'];
const loginResponses = <S extends TSchema>(success: S) => ({
  200: Type.Union([success, LoginFailure]),
  401: Type.Union([LoginFailure, apiErrors[401]]),
});
/** A token endpoint's answers: a grant over its budget (limits.ts) fails in the login envelope too, with 429. */
const tokenResponses = { ...loginResponses(TokenAnswer), 429: LoginFailure };
/** The Token header set the seed names, or the same token as an RFC 6750 Bearer credential. */
const tokenSecurity: Record<string, string[]>[] = [{ accessToken: [] }, { accessTokenBearer: [] }];
const tokenDescription =
  'The access token in the access_token header, or as Authorization: Bearer (RFC 6750 section 2.1); given both ' +
  'ways, the access_token header is the one read. A Bearer token that fails (-2013, -2015) is answered with WWW-Authenticate: ' +
  'Bearer error="invalid_token" beside the same body.';

/** A Token-header call: the token the request presents must be live and for `userId`. */
const authorized = (s: Services, request: FastifyRequest, userId: string) => {
  const presented = presentedToken(request);
  return challengingBearer(presented, () => s.oauth.authorizeToken(presented.token, userId));
};

/** The envelope the seed names, and RFC 6749 section 5.1's fields beside it (schema TokenAnswer). */
const tokenAnswer = (record: TokenRecord): Static<typeof TokenAnswer> => ({
  ...ok(1, record),
  access_token: record.access_token,
  token_type: 'Bearer',
  expires_in: record.expires_in,
  refresh_token: record.refresh_token,
});

export function oauthRoutes(app: App, s: Services): void {
  const exchangeParams = requestParams(AccessTokenParams, CLIENT_ALIASES);
  const refreshParams = requestParams(RefreshTokenParams, CLIENT_ALIASES);
  const revokeParams = requestParams(RevokeParams, CLIENT_ALIASES);
  // Read by requestParams (query string and body merged) with the schema the document shows.
  const description =
    'Parameters in the query string or the body (form or JSON); GET and POST alike. app_id and app_secret ' +
    'may come instead as HTTP Basic credentials (RFC 6749 section 2.3.1); given both ways, they must be equal.';
  const refreshGrant = async (request: FastifyRequest) => {
    const basic = basicClient(request);
    const p = refreshParams(request, basic);
    if (p.grant_type !== 'refresh_token') throw new AppError(Errors.loginParamInvalid, 'grant_type: refresh_token');
    return tokenAnswer(await challengingBasic(basic, () => s.oauth.refresh(p)));
  };

  app.route({
    method: ['GET', 'POST'],
    url: '/openapi/oauth2/access_token',
    // Fastify would answer HEAD by running this GET, which uses the code up: HEAD is then unknown here.
    exposeHeadRoute: false,
    onRequest: noStore,
    schema: {
      tags,
      summary: 'Exchange an authorization code for tokens (or a refresh token, as the refresh endpoint does)',
      description,
      mergedParams: { in: 'querystring', schema: TokenEndpointParams },
      response: tokenResponses,
    },
    handler: async (request) => {
      // The metadata names this the token endpoint for both grants, as RFC 6749 has one.
      if (requestParam(request, 'grant_type') === 'refresh_token') return refreshGrant(request);
      const basic = basicClient(request);
      const p = exchangeParams(request, basic);
      if (p.grant_type !== 'authorization_code')
        throw new AppError(Errors.loginParamInvalid, 'grant_type: authorization_code');
      return tokenAnswer(await challengingBasic(basic, () => s.oauth.exchangeCode(p)));
    },
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/openapi/oauth2/refresh_token',
    // As above: a HEAD would rotate the refresh token.
    exposeHeadRoute: false,
    onRequest: noStore,
    schema: {
      tags,
      summary: 'Renew the access token (the refresh token rotates)',
      description,
      mergedParams: { in: 'querystring', schema: RefreshTokenParams },
      response: tokenResponses,
    },
    handler: refreshGrant,
  });

  app.post(
    '/openapi/oauth2/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke a refresh or access token (RFC 7009)',
        description:
          'Form or JSON body. Ends the grant the token belongs to: its refresh tokens and every access token issued ' +
          'from it then fail (-2012, -2015). Answers success for an unknown token too, so no token can be probed.',
        // Read with the token endpoints' reader: client_id and client_secret (client_secret_post) and
        // HTTP Basic (client_secret_basic), as the metadata advertises, are app_id and app_secret here too.
        mergedParams: { in: 'body', schema: RevokeParams },
        response: loginResponses(Envelope(Type.Null())),
      },
    },
    async (request) => {
      const basic = basicClient(request);
      const p = revokeParams(request, basic);
      await challengingBasic(basic, () => s.oauth.revoke(p));
      return ok(1, null);
    },
  );

  serverMetadataRoute(app, s);

  app.post(
    '/openapi/user/info',
    {
      schema: {
        tags: ['User information'],
        summary: 'The authorized user, with level (header access_token)',
        description: tokenDescription,
        security: tokenSecurity,
        headers: TokenHeaders,
        querystring: TokenUserQuery,
        response: loginResponses(Envelope(UserWithLevel)),
      },
    },
    async (request) => {
      await authorized(s, request, request.query.user_id);
      const u = await s.users.record(request.query.user_id);
      if (u === undefined) throw new AppError(Errors.loginRequired);
      return ok(1, { ...publicView(u), level: u.level, level_icon: u.level_icon });
    },
  );

  app.post(
    '/openapi/user/followers',
    {
      schema: {
        tags: ['User information'],
        summary: 'Followers of the authorized user, newest first (header access_token)',
        description: tokenDescription,
        security: tokenSecurity,
        headers: TokenHeaders,
        querystring: TokenFollowersQuery,
        response: loginResponses(Envelope(Type.Array(PublicUser))),
      },
    },
    async (request) => {
      const q = request.query;
      await authorized(s, request, q.user_id);
      return ok(1, await s.users.followers(q.user_id, q.page, q.size));
    },
  );
}
