import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';

export function healthRoutes(app: App, s: Services): void {
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
    '/metrics',
    { schema: { tags: ['Operations'], summary: 'Prometheus metrics', hide: false } },
    async (_request, reply) => {
      void reply.type(s.metrics.registry.contentType);
      return s.metrics.registry.metrics();
    },
  );
}
