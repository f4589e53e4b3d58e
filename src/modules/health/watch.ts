// Reports losses and returns of Redis: a log line each, and the redis_up gauge.
import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../../http/metrics.js';
import type { RedisLink } from '../../lib/redis-link.js';

/** Watches `link` (undefined without Redis); the result stops watching. */
export function watchRedis(link: RedisLink | undefined, metrics: Metrics, log: FastifyBaseLogger): () => void {
  metrics.trackRedis(() => link?.up);
  if (link === undefined) return () => undefined;
  return link.onChange((up, detail) => {
    if (up) log.info({ redis: detail }, 'Redis is back: shared rate limits, replay protection and messages resume');
    else
      log.warn({ redis: detail }, 'Redis lost: this instance runs on its own (limits and replay protection in memory)');
  });
}
