// oauth owns OAuth 2.0 login (oauth_codes, token_families, refresh_tokens): codes, JWT access tokens, refresh rotation, PKCE, metadata.
// The module's public surface: other modules and the composition root import it only from here.
export { AccessTokens } from './jwt.js';
export { challengeOf, pkceProblem } from './pkce.js';
export { expireOAuthGrants } from './repo.js';
export { oauthRoutes } from './routes.js';
export { AUTHORIZE_PATH, OAuthService, SCOPES } from './service.js';
export type { AppRef, Scope } from './service.js';
