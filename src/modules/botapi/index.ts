// botapi owns the native bot methods /openapi/bot/*: the platform envelope presenter over the messaging and delivery core.
// The module's public surface: other modules and the composition root import it only from here.
export { botApiRoutes } from './routes.js';
