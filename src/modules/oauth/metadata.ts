// Authorization server metadata (RFC 8414) at its well-known address, so a client library can find
// the endpoints and see that PKCE S256 and revocation are offered.
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { AUTHORIZE_PATH } from './service.js';
import { PKCE_METHODS } from './pkce.js';
import { ServerMetadata } from './schema.js';
import { SCOPES } from './service.js';

/**
 * App ID and App Secret travel as HTTP Basic credentials (RFC 6749 section 2.3.1) or as parameters
 * (query, form or JSON; client_id and client_secret are read as their other spelling).
 */
const CLIENT_AUTH = ['client_secret_basic', 'client_secret_post'];

// The contract (seed-api.md "Authorization login") requires user_id at both grants, so a standard
// client succeeds only if it sends that extra parameter too; the document says so.
const DESCRIPTION =
  'Both grants go to token_endpoint (refresh_endpoint answers the refresh grant too). Beyond RFC 6749, ' +
  'each token request needs user_id: the userId the authorize page redirected with.';

export function serverMetadataRoute(app: App, s: Services): void {
  const base = s.config.publicUrl;
  const metadata = {
    issuer: base,
    authorization_endpoint: `${base}${AUTHORIZE_PATH}`,
    token_endpoint: `${base}/openapi/oauth2/access_token`,
    revocation_endpoint: `${base}/openapi/oauth2/revoke`,
    // Not in RFC 8414 (section 2 allows more): the refresh grant has its own endpoint here.
    refresh_endpoint: `${base}/openapi/oauth2/refresh_token`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: [...PKCE_METHODS],
    scopes_supported: [...SCOPES],
    token_endpoint_auth_methods_supported: CLIENT_AUTH,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH,
  };
  app.get(
    '/.well-known/oauth-authorization-server',
    {
      schema: {
        tags: ['Authorization login'],
        summary: 'Authorization server metadata (RFC 8414)',
        description: DESCRIPTION,
        response: { 200: ServerMetadata },
      },
    },
    () => metadata,
  );
}
