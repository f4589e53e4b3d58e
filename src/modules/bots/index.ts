// bots owns bots, their permissions and permission applications (bots, bot_permissions, permission_applications), privacy rules.
// The module's public surface: other modules and the composition root import it only from here.
export { botEvents } from './events.js';
export { privateAllowed } from './privacy.js';
export { botIdOfApp, botsPrivacy, countBotsOf, findBot, insertBot, mayInviteBot, permissionsOf } from './repo.js';
export { permissionRoutes } from './routes.js';
export { BotsService, PERMISSIONS } from './service.js';
export type { ApplicationView } from './service.js';
