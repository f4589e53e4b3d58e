// auth owns App Key, App Secret and signature checks of bot and app calls, and the bounded credential caches (reads apps).
// The module's public surface: other modules and the composition root import it only from here.
export { CredentialStore } from './credentials.js';
export type { Credential } from './credentials.js';
export { apiKeyAuth, credentialOf } from './hook.js';
export type { AuthDeps } from './hook.js';
export { appReads } from './repo.js';
