// consent owns the consent page /oauth/authorize: a signed-in user allows an app's login or payment (no tables; oauth and payments do the work).
// The module's public surface: other modules and the composition root import it only from here.
export { authorizePageRoutes } from './routes.js';
