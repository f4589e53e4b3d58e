// apps owns apps and their redirect URIs (apps, app_redirect_uris): the operator API and CLI that create them and bots.
// The module's public surface: other modules and the composition root import it only from here.
export { appsOf, findApp, redirectUris, replaceRedirectUris } from './repo.js';
export { appRoutes } from './routes.js';
export { AppsService, MAX_APPS_PER_OWNER, MAX_BOTS_PER_OWNER } from './service.js';
export type { NewBot } from './service.js';
