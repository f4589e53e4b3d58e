// playground owns the bot playground /playground/: a signed-in user writes to a bot through the event path and sees replies live.
// The module's public surface: other modules and the composition root import it only from here.
export { playgroundRoutes } from './routes.js';
export { PlaygroundService } from './service.js';
