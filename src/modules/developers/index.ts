// developers owns the developer site and the developer's view of apps and bots (the rules for names and URLs: lib/input-rules.ts).
// The module's public surface: other modules and the composition root import it only from here.
export { DevelopersService } from './service.js';
export type { AppSummary, BotView } from './service.js';
export { developerSiteRoutes } from './site-routes.js';
