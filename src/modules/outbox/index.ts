// outbox owns GET /internal/v1/messages: the operator's read of the outbox with next_cursor (reads outbox_messages through messaging's index).
// The module's public surface: other modules and the composition root import it only from here.
export { outboxRoutes } from './routes.js';
export { OutboxService } from './service.js';
