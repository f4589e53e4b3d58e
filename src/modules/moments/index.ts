// moments owns moments and their likes (moments, moment_likes): reads and events.
// The module's public surface: other modules and the composition root import it only from here.
export { momentEvents } from './events.js';
export { momentReads } from './reads.js';
export { momentRoutes } from './routes.js';
export { MomentsService } from './service.js';
