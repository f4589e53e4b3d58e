// points owns the points ledger (ledger_accounts, ledger_transactions, ledger_entries): balances, points events, the ledger check.
// The module's public surface: other modules and the composition root import it only from here.
export { pointEvents } from './events.js';
export { checkLedger, Ledger, userAccount } from './repo.js';
export type { LedgerCheck } from './repo.js';
export { pointRoutes } from './routes.js';
export { PointsService } from './service.js';
