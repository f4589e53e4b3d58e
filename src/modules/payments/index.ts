// payments owns authorized payments (payment_orders): orders, their consent and the ledger transfer.
// The module's public surface: other modules and the composition root import it only from here.
export { paymentRoutes } from './routes.js';
export { PaymentsService, SOURCE } from './service.js';
export type { PaymentRequest } from './service.js';
