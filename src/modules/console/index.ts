// console owns the operator console (console_sessions, audit_log): its sign-in, pages and the audit trail.
// The module's public surface: other modules and the composition root import it only from here.
export { expireSessions as expireConsoleSessions } from './repo.js';
export { consoleRoutes } from './routes.js';
export { ConsoleService } from './service.js';
