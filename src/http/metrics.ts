// Prometheus metrics: request counts and latency per route, error answers per surface and id,
// operator events per type, and whether Redis answers.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

declare module 'fastify' {
  interface FastifyInstance {
    /** Decorated by the health routes; the error handler counts error answers on it. */
    metrics: Metrics;
  }
}

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
    registers: [this.registry],
  });
  readonly events = new Counter({
    name: 'operator_events_total',
    help: 'Operator events by type and outcome (applied, duplicate, refused)',
    labelNames: ['type', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly webhookAttempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome (delivered, failed)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly updatesDropped = new Counter({
    name: 'updates_dropped_total',
    help: 'Updates dropped unconfirmed after 24 hours (polling and webhook)',
    registers: [this.registry],
  });

  /** The bot surface answers most errors with HTTP 200, so statuses alone do not count them. */
  readonly errors = new Counter({
    name: 'http_errors_total',
    help: 'Error answers by surface (openapi, bot, internal) and error id',
    labelNames: ['surface', 'error'] as const,
    registers: [this.registry],
  });

  private redisState: () => boolean | undefined = () => undefined;
  readonly redisUp = new Gauge({
    name: 'redis_up',
    help: '1 while Redis answers, 0 while it is lost (single-instance fallback); absent without REDIS_URL',
    registers: [this.registry],
    collect: () => {
      const up = this.redisState();
      if (up === undefined) this.redisUp.remove();
      else this.redisUp.set(up ? 1 : 0);
    },
  });

  /** Where the redis_up gauge reads its state (undefined: Redis is not configured). */
  trackRedis(state: () => boolean | undefined): void {
    this.redisState = state;
  }

  private countLongPolls: () => number = () => 0;
  readonly longPolls = new Gauge({
    name: 'long_polls',
    help: 'getUpdates long polls held open by this instance',
    registers: [this.registry],
    collect: () => {
      this.longPolls.set(this.countLongPolls());
    },
  });

  /** Where the long-poll gauge reads its value. */
  trackLongPolls(count: () => number): void {
    this.countLongPolls = count;
  }

  constructor(withProcessMetrics = true) {
    if (withProcessMetrics) collectDefaultMetrics({ register: this.registry });
  }

  // Labelled children looked up once per (method, route, status): prom-client hashes labels on every call.
  private readonly perRoute = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>();

  /** Counts one answered request under its route pattern (never the raw URL: ids would explode the label set). */
  observe(method: string, route: string, status: number, ms: number): void {
    const key = `${method} ${route} ${status}`;
    let child = this.perRoute.get(key);
    if (child === undefined) {
      child = { count: this.requests.labels(method, route, String(status)), time: this.latency.labels(method, route) };
      this.perRoute.set(key, child);
    }
    child.count.inc();
    child.time.observe(ms / 1000);
  }
}
