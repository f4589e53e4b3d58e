// chat owns users' chat messages (chat_messages): the message.created events and their hand-off to delivery and the assistant.
// The module's public surface: other modules and the composition root import it only from here.
export { chatEvents } from './events.js';
