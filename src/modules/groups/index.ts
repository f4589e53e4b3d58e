// groups owns groups and their members (groups, group_members, user_group_stats): reads, addresses and events.
// The module's public surface: other modules and the composition root import it only from here.
export { groupByShareUrl, groupAddress } from './address.js';
export type { GroupAddress } from './address.js';
export { groupEvents } from './events.js';
export { groupReads } from './reads.js';
export { bumpGroup, findGroup, lockGroupIfRoom, roleIn } from './repo.js';
export { groupRoutes } from './routes.js';
export { GroupsService } from './service.js';
