// One timed run of autocannon against one server, with exact latency percentiles (autocannon's
// own histogram rounds to whole milliseconds).
import autocannon from 'autocannon';
import { percentile, Samples } from './stats.js';

export interface LoadOptions {
  port: number;
  requests: autocannon.Request[];
  connections: number;
  durationS: number;
  /** Send exactly this many requests instead of running for durationS. */
  amount?: number;
}

export interface LoadResult {
  /** Mean of the per-second request counts (2xx and others); with a fixed amount, requests / seconds. */
  rps: number;
  /** Latency of 2xx answers, in ms. */
  p50: number;
  p99: number;
  max: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  seconds: number;
}

export function runLoad(o: LoadOptions): Promise<LoadResult> {
  const latencies = new Samples();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${o.port}`,
        connections: o.connections,
        pipelining: 1,
        // autocannon notices the end of a fixed amount only at its next sample tick: ticks of 20 ms
        // keep the elapsed time (and so req/s) within a fraction of a percent.
        ...(o.amount !== undefined ? { amount: o.amount, sampleInt: 20 } : { duration: o.durationS }),
        requests: o.requests,
      },
      (err: unknown, result: autocannon.Result) => {
        if (err !== null && err !== undefined) {
          reject(err instanceof Error ? err : new Error(JSON.stringify(err)));
          return;
        }
        const sorted = latencies.sorted();
        resolve({
          // The per-second average suits timed runs; a fixed amount is requests over elapsed time.
          rps: o.amount !== undefined ? result.requests.total / result.duration : result.requests.average,
          p50: percentile(sorted, 50),
          p99: percentile(sorted, 99),
          max: sorted[sorted.length - 1] ?? NaN,
          requests: result.requests.total,
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          seconds: result.duration,
        });
      },
    );
    instance.on('response', (_client, status, _bytes, responseTime) => {
      if (status >= 200 && status < 300) latencies.push(responseTime);
    });
  });
}
