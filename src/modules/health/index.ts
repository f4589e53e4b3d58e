// health owns /healthz, /readyz and /metrics.
// The module's public surface: other modules and the composition root import it only from here.
export { pingDb } from './repo.js';
export { healthRoutes } from './routes.js';
