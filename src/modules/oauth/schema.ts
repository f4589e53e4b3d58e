import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';
import { URL_MAX } from '../../lib/input-rules.js';
import { Paging } from '../../lib/schemas.js';

const Text = (description: string) => Type.String({ minLength: 1, maxLength: 512, description });
const GrantType = (grant: string, description = grant) =>
  Type.String({ minLength: 1, maxLength: 512, description, examples: [grant] });
const AppCredentials = {
  app_id: Text('application id from the developer site (or client_id, or HTTP Basic credentials)'),
  app_secret: Text('App Secret of that application (or client_secret, or HTTP Basic credentials)'),
};
/** RFC 6749 section 2.3.1 spellings of the credentials (client_secret_post), read as app_id and app_secret. */
export const CLIENT_ALIASES = { client_id: 'app_id', client_secret: 'app_secret' } as const;
const ClientCredentials = {
  client_id: Type.Optional(Text('app_id as RFC 6749 spells it; when both are given they must be equal')),
  client_secret: Type.Optional(Text('app_secret as RFC 6749 spells it; when both are given they must be equal')),
};
// grant_type is any text to the schema: the endpoint refuses another grant with -2004, not a parameter error.

export const AccessTokenParams = Type.Object({
  grant_type: GrantType('authorization_code'),
  code: Text('the code the authorize page redirected with (valid 5 minutes, usable once)'),
  ...AppCredentials,
  ...ClientCredentials,
  user_id: Text('the userId the authorize page redirected with'),
  code_verifier: Type.Optional(
    Type.String({
      maxLength: 512,
      description: 'PKCE (RFC 7636): required when the authorization request gave a code_challenge',
    }),
  ),
  redirect_uri: Type.Optional(
    Type.String({
      maxLength: URL_MAX,
      description:
        'RFC 6749 section 4.1.3: when given, it must be the redirect_uri the code was issued for, ' +
        'character for character (otherwise -2011, and the code stays unused)',
    }),
  ),
});

export const RefreshTokenParams = Type.Object({
  grant_type: GrantType('refresh_token'),
  refresh_token: Text('the refresh token (valid 14 days; each refresh issues a new one)'),
  ...AppCredentials,
  ...ClientCredentials,
  user_id: Text('the user the tokens were issued for'),
  // Listed by the description beside the refresh parameters; their role is not shown, so unused.
  access_token: Type.Optional(Type.String({ maxLength: 4096, description: 'accepted and not used' })),
  serial_id: Type.Optional(Type.String({ maxLength: 128, description: 'accepted and not used' })),
});

/**
 * What the document shows for the token endpoint: the code exchange, and the refresh grant it also
 * takes (RFC 6749 section 6, one token endpoint), answered as /openapi/oauth2/refresh_token answers.
 */
export const TokenEndpointParams = Type.Object({
  ...AccessTokenParams.properties,
  grant_type: GrantType(
    'authorization_code',
    'authorization_code, or refresh_token (then refresh_token instead of code)',
  ),
  // Each grant requires its own: the document can only say so in words.
  code: Type.Optional(Text('required with grant_type authorization_code: the code the authorize page redirected with')),
  refresh_token: Type.Optional(Text('required with grant_type refresh_token: the refresh token, which rotates')),
});

export const TokenRecord = Type.Object({
  access_token: Type.String(),
  expires_in: Type.Integer(),
  refresh_token: Type.String(),
  token_type: Type.String(),
});

/**
 * A token endpoint's success: the seed's envelope with the token record in `data`, and beside it
 * (added) RFC 6749 section 5.1's fields at the top level, where standard OAuth clients read them.
 */
export const TokenAnswer = Type.Object({
  ...Envelope(TokenRecord).properties,
  access_token: Type.String({ description: 'data.access_token, where RFC 6749 clients read it' }),
  token_type: Type.Literal('Bearer', { description: "RFC 6749 section 5.1 (data's token_type stays empty)" }),
  expires_in: Type.Integer({ description: 'data.expires_in: seconds the access token lives' }),
  refresh_token: Type.String({ description: 'data.refresh_token, where RFC 6749 clients read it' }),
});

/** Failures of the login flow: `{code, data: null, message, success: false}`. */
export const LoginFailure = Type.Object({
  code: Type.Integer(),
  data: Type.Null(),
  message: Type.String(),
  success: Type.Literal(false),
});

export const TokenUserQuery = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 128 }) });
export const TokenFollowersQuery = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 128 }), ...Paging });
export const TokenHeaders = Type.Object({ access_token: Type.Optional(Type.String({ maxLength: 4096 })) });

export const UserWithLevel = Type.Object({
  name: Type.String(),
  wallet_address: Type.String(),
  avatar: Type.String(),
  uid: Type.String(),
  level: Type.Integer(),
  level_icon: Type.String(),
});

/** RFC 7009 section 2.1, with the app's credentials as the token endpoints take them. */
export const RevokeParams = Type.Object({
  ...AppCredentials,
  ...ClientCredentials,
  token: Type.String({ minLength: 1, maxLength: 4096, description: 'An access token or a refresh token' }),
  token_type_hint: Type.Optional(
    Type.String({ maxLength: 64, description: 'access_token or refresh_token; other values are ignored' }),
  ),
});

/** RFC 8414 section 2: what a client needs to find the endpoints and the supported features. */
export const ServerMetadata = Type.Object({
  issuer: Type.String(),
  authorization_endpoint: Type.String(),
  token_endpoint: Type.String(),
  revocation_endpoint: Type.String(),
  refresh_endpoint: Type.String(),
  response_types_supported: Type.Array(Type.String()),
  grant_types_supported: Type.Array(Type.String()),
  code_challenge_methods_supported: Type.Array(Type.String()),
  scopes_supported: Type.Array(Type.String()),
  token_endpoint_auth_methods_supported: Type.Array(Type.String()),
  revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
});
