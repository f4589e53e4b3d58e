// Prometheus metrics: request counts and latency per route, error answers per surface and id,
// operator events per type, and whether Redis answers.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { LatencyHistogram, type LatencySeries } from './latency.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Decorated by the health routes; the error handler counts error answers on it. */
    metrics: Metrics;
  }
}

/** A count kept in a plain number for one label set: prom-client hashes the labels on every inc. */
interface Tally<L extends string> {
  labels: Record<L, string | number>;
  /** Counted since the counter was last read. */
  uncounted: number;
}

interface RouteTally extends Tally<'method' | 'route' | 'status'> {
  time: LatencySeries;
}

/** Adds to `counter` what the tallies counted since it was last read (its `collect`, run on each read). */
function flush<L extends string>(counter: Counter<L>, tallies: Iterable<Tally<L>>): void {
  for (const tally of tallies) {
    if (tally.uncounted === 0) continue;
    counter.inc(tally.labels, tally.uncounted);
    tally.uncounted = 0;
  }
}

export class Metrics {
  readonly registry = new Registry();
  readonly requests: Counter<'method' | 'route' | 'status'> = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
    collect: () => {
      flush(this.requests, this.perRoute.values());
    },
  });
  readonly latency = new LatencyHistogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
    registry: this.registry,
  });
  readonly events: Counter<'type' | 'outcome'> = new Counter({
    name: 'operator_events_total',
    help: 'Operator events by type and outcome (applied, duplicate, refused)',
    labelNames: ['type', 'outcome'],
    registers: [this.registry],
    collect: () => {
      flush(this.events, this.perEvent.values());
    },
  });

  readonly webhookAttempts = this.counter(
    'webhook_attempts_total',
    'Webhook delivery attempts by outcome (delivered, failed)',
    ['outcome'],
  );
  readonly updatesDropped = this.counter(
    'updates_dropped_total',
    'Updates dropped unconfirmed after 24 hours (polling and webhook)',
  );

  /** The bot surface answers most errors with HTTP 200, so statuses alone do not count them. */
  readonly errors = this.counter(
    'http_errors_total',
    'Error answers by surface (openapi, bot, internal) and error id',
    ['surface', 'error'],
  );

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

  private counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  constructor(withProcessMetrics = true) {
    if (withProcessMetrics) collectDefaultMetrics({ register: this.registry });
  }

  // Per (method, route, status): prom-client hashes the labels on every call, so requests are
  // counted here and handed to it when read; the route's latency series is looked up once.
  private readonly perRoute = new Map<string, RouteTally>();

  // Events arrive a thousand to a batch: counted here per (type, outcome), handed over when read.
  private readonly perEvent = new Map<string, Tally<'type' | 'outcome'>>();

  countEvent(type: string, outcome: string): void {
    const key = `${type} ${outcome}`;
    let tally = this.perEvent.get(key);
    if (tally === undefined) {
      tally = { labels: { type, outcome }, uncounted: 0 };
      this.perEvent.set(key, tally);
    }
    tally.uncounted++;
  }

  /** Counts one answered request under its route pattern (never the raw URL: ids would explode the label set). */
  observe(method: string, route: string, status: number, ms: number): void {
    const key = `${method} ${route} ${status}`;
    let tally = this.perRoute.get(key);
    if (tally === undefined) {
      tally = { labels: { method, route, status }, uncounted: 0, time: this.latency.seriesOf(method, route) };
      this.perRoute.set(key, tally);
    }
    tally.uncounted++;
    tally.time.observe(ms / 1000);
  }
}
