// A Prometheus histogram per (method, route) whose observations are plain additions: prom-client's
// Histogram checks the labels and hashes them into a string on every observation, about 2% of a
// cached signed read's CPU. What it gives the registry is what a prom-client Histogram with the
// same observations gives (test/latency.test.ts compares the two expositions).
import { Histogram, type Registry } from 'prom-client';

type Label = 'method' | 'route';

/** The observations of one (method, route). */
export class LatencySeries {
  /** Per bucket, not cumulative; the last counts values above every bound. */
  private readonly counts: number[];
  private sum = 0;
  private count = 0;

  constructor(
    readonly labels: Record<Label, string>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > (this.bounds[i] ?? Infinity)) i++;
    this.counts[i] = (this.counts[i] ?? 0) + 1;
    this.sum += value;
    this.count++;
  }

  /**
   * The series as prom-client's Histogram hands it to the registry: cumulative buckets, +Inf, sum
   * and count, each with its own labels (le) and the series' labels shared.
   */
  values(name: string): PromValue[] {
    const sharedLabels = this.labels;
    let seen = 0;
    const buckets = this.bounds.map((le, i): PromValue => {
      seen += this.counts[i] ?? 0;
      return { labels: { le }, sharedLabels, value: seen, metricName: `${name}_bucket`, exemplar: null };
    });
    return [
      ...buckets,
      { labels: { le: '+Inf' }, sharedLabels, value: this.count, metricName: `${name}_bucket`, exemplar: null },
      { labels: {}, sharedLabels, value: this.sum, metricName: `${name}_sum` },
      { labels: {}, sharedLabels, value: this.count, metricName: `${name}_count` },
    ];
  }
}

interface PromValue {
  labels: { le?: number | string };
  sharedLabels: Record<Label, string>;
  value: number;
  metricName: string;
  exemplar?: null;
}

export interface LatencyOptions {
  name: string;
  help: string;
  buckets: readonly number[];
  registry: Registry;
}

/**
 * Registered as a prom-client Histogram (the registry takes only its own metric classes), with its
 * series kept here. The registry reads `getForPromString()` for the exposition, and Histogram's
 * `get()` (the JSON) reads it too and merges the shared labels in. Observe through `seriesOf`:
 * Histogram's own `observe`, `labels` and `startTimer` write to a table nothing reads.
 */
export class LatencyHistogram extends Histogram<Label> {
  private series = new Map<string, LatencySeries>();
  private readonly options: LatencyOptions;

  constructor(options: LatencyOptions) {
    super({
      name: options.name,
      help: options.help,
      labelNames: ['method', 'route'],
      buckets: [...options.buckets],
      registers: [options.registry],
    });
    this.options = options;
  }

  /** The series of one route: look it up once and observe on it. */
  seriesOf(method: string, route: string): LatencySeries {
    const key = `${method} ${route}`;
    let series = this.series.get(key);
    if (series === undefined) {
      series = new LatencySeries({ method, route }, this.options.buckets);
      this.series.set(key, series);
    }
    return series;
  }

  /** registry.resetMetrics(); Histogram's constructor calls it too, before this class's fields exist. */
  override reset(): void {
    super.reset();
    this.series = new Map();
  }

  getForPromString() {
    const { name, help } = this.options;
    const values = [...this.series.values()].flatMap((s) => s.values(name));
    return Promise.resolve({ name, help, type: 'histogram' as const, values, aggregator: 'sum' as const });
  }
}
