// The plain way to apply a batch: each event claims its id, applies and records its outcome on its
// own, one after another. The set-based pipeline (pipeline.ts) must give exactly what this gives;
// test/events-differential.test.ts compares the two.
import type { BatchContext } from './define.js';
import * as repo from './repo.js';
import type { Applied, Step } from './steps.js';

export async function applyOneByOne(ctx: BatchContext, steps: readonly Step[]): Promise<Applied> {
  const { tx, now } = ctx;
  const outcomes: Applied = [];
  for (const { event: e, apply } of steps) {
    const fresh = await repo.claimEvent(tx, e.id, e.type, now);
    if (!fresh && (await repo.eventStatus(tx, e.id)) === 'applied') {
      outcomes.push({ kind: 'duplicate' });
      continue;
    }
    if (apply === undefined) throw new Error(`event ${e.id} has no prepared step`);
    const reason = await apply({ ...ctx, eventId: e.id });
    if (reason !== undefined || !fresh) await repo.recordOutcome(tx, e.id, reason ?? null, now);
    outcomes.push(reason === undefined ? { kind: 'applied' } : { kind: 'refused', reason });
  }
  return outcomes;
}
