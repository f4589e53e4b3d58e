// Operations endpoints: liveness, readiness (database and Redis answer) and Prometheus metrics,
// optionally behind METRICS_TOKEN.
import { Type } from 'typebox';
import { AppError, Errors } from '../../errors.js';
import { OperatorError } from '../../http/internal.js';
import type { App } from '../../http/types.js';
import { settlesWithin } from '../../lib/deadline.js';
import { sha256Hex } from '../../lib/crypto.js';
import type { Services } from '../../services.js';
import { bearerMatches } from '../admin/index.js';
import { dbReady } from './repo.js';
import { watchRedis } from './watch.js';

/** A readiness probe must answer well within a load balancer's timeout. */
const CHECK_MS = 2_000;

const Dependency = Type.Union([Type.Literal('database'), Type.Literal('redis')]);
type Dependency = 'database' | 'redis';

export function healthRoutes(app: App, s: Services): void {
  // The error handler counts error answers here (the bot surface answers most with HTTP 200).
  app.decorate('metrics', s.metrics);
  const stopWatching = watchRedis(s.shared.redis, s.metrics, app.log);
  app.addHook('onClose', (_instance, done) => {
    stopWatching();
    done();
  });

  app.get(
    '/healthz',
    {
      schema: {
        tags: ['Operations'],
        summary: 'Liveness: 200 once the server takes requests',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['Operations'],
        summary:
          'Readiness: 200 when the database answers (on SQLite: and can take a write) and (when configured) Redis answers, 503 naming what is down',
        response: {
          200: Type.Object({ status: Type.Literal('ready') }, { additionalProperties: false }),
          503: Type.Object(
            { status: Type.Literal('degraded'), down: Type.Array(Dependency, { minItems: 1 }) },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (_request, reply) => {
      const [database, redis] = await Promise.all([
        settlesWithin(dbReady(s.db), CHECK_MS),
        s.shared.redis?.answers(CHECK_MS) ?? true,
      ]);
      const down: Dependency[] = [...(database ? [] : ['database' as const]), ...(redis ? [] : ['redis' as const])];
      if (down.length === 0) return { status: 'ready' as const };
      return reply.code(503).send({ status: 'degraded' as const, down });
    },
  );

  const tokenHash = s.config.metricsToken === undefined ? undefined : sha256Hex(s.config.metricsToken);
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['Operations'],
        summary: 'Prometheus metrics (with METRICS_TOKEN set: only for `Authorization: Bearer <METRICS_TOKEN>`)',
        hide: false,
        response: {
          200: { content: { 'text/plain': { schema: Type.String() } } },
          401: OperatorError,
        },
      },
    },
    async (request, reply) => {
      if (tokenHash !== undefined && !bearerMatches(request.headers.authorization, tokenHash)) {
        throw new AppError(Errors.unauthorized, undefined, {}, { 'www-authenticate': 'Bearer realm="metrics"' });
      }
      void reply.type(s.metrics.registry.contentType);
      return s.metrics.registry.metrics();
    },
  );
}
