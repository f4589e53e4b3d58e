// Wires the domain services to their stores once; routes, the CLI and tests all use this.
import type { Config } from './config.js';
import type { Db } from './db/connect.js';
import { UnitOfWork } from './db/work.js';
import { Metrics } from './http/metrics.js';
import { PageCsrf } from './http/pages/csrf.js';
import { systemClock, type Clock } from './lib/clock.js';
import { SecretBox } from './lib/crypto.js';
import { Invalidations } from './lib/invalidation.js';
import { GuessLimiter } from './lib/guess-limit.js';
import { MemoryRateLimiter } from './lib/rate-limit.js';
import { localSharedState, type SharedState } from './lib/shared-state.js';
import { ActivitiesService, activityEvents } from './modules/activities/index.js';
import { appReads, type AuthDeps, CredentialStore } from './modules/auth/index.js';
import { AppsService } from './modules/apps/index.js';
import { botEvents, BotsService } from './modules/bots/index.js';
import { chatEvents } from './modules/chat/index.js';
import { AssistantService } from './modules/assistant/index.js';
import { DevelopersService } from './modules/developers/index.js';
import { EventsService } from './modules/events/index.js';
import { groupEvents, groupReads, GroupsService } from './modules/groups/index.js';
import { momentEvents, momentReads, MomentsService } from './modules/moments/index.js';
import { OutboxService } from './modules/outbox/index.js';
import { Ledger, pointEvents, PointsService } from './modules/points/index.js';
import { SessionsService } from './modules/sessions/index.js';
import { telegramReads } from './modules/telegram/index.js';
import { userEvents, userReads, UsersService } from './modules/users/index.js';
import { MessagingService } from './modules/messaging/index.js';
import { AccessTokens, OAuthService } from './modules/oauth/index.js';
import { PaymentsService } from './modules/payments/index.js';
import { PlaygroundService } from './modules/playground/index.js';
import { ConsoleService } from './modules/console/index.js';
import { DeliveryService, WebhookDispatcher } from './modules/delivery/index.js';
import { RetentionSweep } from './modules/retention/index.js';

export interface ServiceDeps {
  config: Config;
  db: Db;
  encryptionKey: Buffer;
  /** sha256 of the operator's bearer token. */
  adminTokenHash: string;
  clock?: Clock;
  /** Required with REDIS_URL (openSharedState opens it, asynchronously); in memory by default. */
  shared?: SharedState;
  metrics?: Metrics;
}

export type Services = ReturnType<typeof createServices>;

/**
 * The shared state when none is given: memory. Redis opens asynchronously (ioredis is loaded only
 * then), so with REDIS_URL the caller opens it (openSharedState) and passes it in, as boot() does.
 */
function defaultSharedState(config: Config): SharedState {
  if (config.redisUrl !== undefined) throw new Error('createServices: REDIS_URL is set; pass openSharedState()');
  return localSharedState();
}

export function createServices(deps: ServiceDeps) {
  const { config, db } = deps;
  const clock = deps.clock ?? systemClock;
  const box = new SecretBox(deps.encryptionKey);
  const shared = deps.shared ?? defaultSharedState(config);
  const metrics = deps.metrics ?? new Metrics();
  const invalidations = new Invalidations(shared.bus);
  const credentials = new CredentialStore(appReads(db), box, invalidations, () => clock.now());
  const auth: AuthDeps = {
    credentials,
    nonces: shared.nonces,
    clock,
    requireSigned: config.requireSigned,
    limiter: shared.limiter,
    readsPerSecond: config.rateLimits ? config.limits.readsPerSecond : undefined,
  };

  const work = new UnitOfWork(db, clock, invalidations);
  const readsOfUsers = userReads(db);
  const ledger = new Ledger(db);
  const oauth = new OAuthService(
    db,
    work,
    clock,
    credentials,
    new AccessTokens(deps.encryptionKey),
    config,
    config.rateLimits ? shared.limiter : undefined,
    config.limits.tokenAppPerSecond,
  );
  const delivery = new DeliveryService(db, work, clock, box, shared.bus, invalidations, config);
  metrics.trackLongPolls(() => delivery.polling);
  const users = new UsersService(readsOfUsers, invalidations, () => clock.now());
  const apps = new AppsService(db, box, work);
  const bots = new BotsService(db, work);
  const developers = new DevelopersService(db, apps, bots, delivery);
  const assistant = new AssistantService(developers, delivery, `${config.publicUrl}/developers/`);
  const events = new EventsService(
    db,
    work,
    [
      ...userEvents,
      ...groupEvents,
      ...momentEvents,
      ...activityEvents,
      ...pointEvents(ledger),
      ...botEvents,
      ...chatEvents(assistant),
    ],
    (type, outcome) => {
      metrics.countEvent(type, outcome);
    },
  );
  const groups = new GroupsService(groupReads(db), users);
  return {
    config,
    db,
    clock,
    box,
    shared,
    metrics,
    adminTokenHash: deps.adminTokenHash,
    /** Wrong operator tokens on the console (its sign-in form and its bearer check): one budget, one token. */
    operatorGuesses: new GuessLimiter(
      'operator',
      new MemoryRateLimiter(),
      shared.redis === undefined ? undefined : shared.limiter,
      clock,
    ),
    work,
    invalidations,
    credentials,
    auth,
    events,
    users,
    groups,
    moments: new MomentsService(momentReads(db), users),
    activities: new ActivitiesService(users, groups),
    apps,
    bots,
    developers,
    assistant,
    points: new PointsService(db),
    sessions: new SessionsService(db, work, clock),
    csrf: new PageCsrf(deps.encryptionKey, config.publicUrl.startsWith('https://')),
    outbox: new OutboxService(db),
    delivery,
    dispatcher: new WebhookDispatcher(db, work, clock, box, metrics, config, invalidations),
    retention: new RetentionSweep(db, clock, config),
    oauth,
    payments: new PaymentsService(db, work, clock, oauth, ledger, config),
    messaging: new MessagingService(db, work, clock, shared.limiter, config, readsOfUsers, invalidations),
    telegramReads: telegramReads(db),
    playground: new PlaygroundService(db, events, clock),
    console: new ConsoleService(db, clock, work, bots, developers, deps.adminTokenHash),
  };
}
