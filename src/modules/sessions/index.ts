// sessions owns operator-created user sessions (sessions) and their op_session cookie.
// The module's public surface: other modules and the composition root import it only from here.
export { expireSessions } from './repo.js';
export { sessionRoutes } from './routes.js';
export { SESSION_COOKIE, SESSION_TTL_MS, SessionsService } from './service.js';
