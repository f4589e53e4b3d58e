// admin owns the operator token (meta): its hash, its announcement at start-up and the bearer check of operator calls.
// The module's public surface: other modules and the composition root import it only from here.
export { announceAdminToken } from './announce.js';
export { API_ACTOR, bearerMatches, ensureAdminToken, operatorBearer } from './service.js';
export type { AdminToken } from './service.js';
