// assistant owns the bot-creation assistant (assistant_conversations): its private-chat conversation and replies.
// The module's public surface: other modules and the composition root import it only from here.
export { assistantRoutes } from './routes.js';
export { AssistantService } from './service.js';
export type { VettedUrls } from './service.js';
