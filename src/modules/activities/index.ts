// activities owns votes, lucky draws and lucky boxes (votes, vote_casts, lucky_draws, lucky_draw_entries, lucky_boxes, lucky_box_claims): their reads and events.
// The module's public surface: other modules and the composition root import it only from here.
export { activityEvents } from './events.js';
export { activityRoutes } from './routes.js';
export { ActivitiesService } from './service.js';
