// events owns operator event batches POST /internal/v1/events (processed_events), the event-handler framework and the batch pipeline.
// The module's public surface: other modules and the composition root import it only from here.
export { defineBatchedEvent, defineEvent, PerBatch } from './define.js';
export type { BatchContext, EventContext, EventHandler, Outcome } from './define.js';
export { eventRoutes } from './routes.js';
export { addTo, json, jsonList, run, statement } from './rows.js';
export type { Statement } from './rows.js';
export { EventsService } from './service.js';
export type { IncomingEvent } from './service.js';
