// delivery owns the delivery queue (updates, webhook_deliveries, callback_queries; their only writer): fan-out, getUpdates, webhooks, their dispatcher and redelivery.
// The module's public surface: other modules and the composition root import it only from here.
export { WebhookDispatcher } from './dispatcher.js';
export { keptKinds, updateKinds } from './kinds.js';
export { fanOutCallback, fanOutMessage, fanOutMessages } from './fanout.js';
export { expireCallbackQueries, expireDeliveries } from './repo.js';
export { DeliveryService } from './service.js';
export type { UpdateObject } from './stored.js';
export type { VettedWebhookUrl } from './webhook-url.js';
