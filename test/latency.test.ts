// The latency histogram counted in plain numbers (src/http/latency.ts) against prom-client's own
// Histogram given the same observations: the same exposition text and the same JSON.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { LatencyHistogram } from '../src/http/latency.js';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60];
const NAME = 'http_request_duration_seconds';
const HELP = 'HTTP request latency by route';

const observation = fc.record({
  method: fc.constantFrom('GET', 'POST'),
  route: fc.constantFrom('/healthz', '/openapi/user/info', 'unmatched', '/a "quoted" \\ route'),
  // Bounds themselves, values between and beyond them, and zero.
  seconds: fc.oneof(fc.constantFrom(0, ...BUCKETS, 61), fc.double({ min: 0, max: 100, noNaN: true })),
});

it('gives the registry what prom-client Histogram gives for the same observations', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(observation, { maxLength: 60 }), async (observations) => {
      const ours = new Registry();
      const reference = new Registry();
      const fast = new LatencyHistogram({ name: NAME, help: HELP, buckets: BUCKETS, registry: ours });
      const plain = new Histogram({
        name: NAME,
        help: HELP,
        labelNames: ['method', 'route'],
        buckets: BUCKETS,
        registers: [reference],
      });
      for (const o of observations) {
        fast.seriesOf(o.method, o.route).observe(o.seconds);
        plain.observe({ method: o.method, route: o.route }, o.seconds);
      }
      assert.equal(await ours.metrics(), await reference.metrics());
      // As JSON: prom-client leaves `exemplar: undefined` keys on sums and counts.
      const json = async (r: Registry) => JSON.parse(JSON.stringify(await r.getMetricsAsJSON())) as unknown;
      assert.deepEqual(await json(ours), await json(reference));
      ours.resetMetrics();
      reference.resetMetrics();
      assert.equal(await ours.metrics(), await reference.metrics());
    }),
    { numRuns: 200 },
  );
});
