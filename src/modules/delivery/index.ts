// delivery owns the delivery queue (updates, webhook_deliveries, callback_queries): fan-out, getUpdates, webhooks and their dispatcher.
// The module's public surface: other modules and the composition root import it only from here.
export { WebhookDispatcher } from './dispatcher.js';
export { fanOutCallback, fanOutMessage, updatesKey } from './fanout.js';
export { insertUpdate } from './repo.js';
export { DeliveryService } from './service.js';
export type { UpdateObject } from './stored.js';
export type { VettedWebhookUrl } from './webhook-http.js';
