// telegram owns the Telegram-compatible bot API /telegram/bot<token>/<method> (bot_commands): a second presenter over the bot core.
// The module's public surface: other modules and the composition root import it only from here.
export { telegramIdOf, telegramReads } from './repo.js';
export { telegramRoutes } from './routes.js';
export { telegramToken } from './token.js';
