// users owns users, wallets, statistics, follows and the Telegram numbers (users, wallets, user_stats, follows, telegram_counters): profiles, reads and events.
// The module's public surface: other modules and the composition root import it only from here.
export { exactlyOne } from './alternative.js';
export { bumpUsersStats, findUsers, follows, knownUsers, pairKey, pairTable, socialDeltas } from './batch-repo.js';
export type { Pair } from './batch-repo.js';
export { userEvents } from './events.js';
export { userReads } from './reads.js';
export type { UserReads } from './reads.js';
export {
  bumpUserStats,
  drawTelegramNumbers,
  findUser,
  isFollowing,
  lockUserStatsIfRoom,
  raiseLevel,
  setWallet,
  upsertUser,
  usersExist,
} from './repo.js';
export { userRoutes } from './routes.js';
export { PublicUser } from './schema.js';
export { UsersService, publicView } from './service.js';
export type { PublicUserView } from './service.js';
