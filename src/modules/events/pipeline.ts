// The set-based way to apply a batch, with exactly the results of reference.ts: every id claimed in
// one statement, the statuses of ids seen before read in one query, then runs of consecutive events
// of one type applied together by their handler's `batch` (other types one at a time), and the
// outcomes that differ from the claim ('applied') written in one statement at the end.
import type { BatchContext, CheckedEvent, EventHandler, Outcome } from './define.js';
import * as repo from './repo.js';
import type { Applied, EventResult, Step } from './steps.js';

const APPLIED: EventResult = { kind: 'applied' };
const DUPLICATE: EventResult = { kind: 'duplicate' };

export async function applySetBased(ctx: BatchContext, steps: readonly Step[]): Promise<Applied> {
  const claimed = await repo.claimEvents(
    ctx,
    steps.map((s) => s.event),
  );
  const unclaimed = new Set<string>();
  for (const { event } of steps) if (!claimed.has(event.id)) unclaimed.add(event.id);
  const known = await repo.eventStatuses(ctx, [...unclaimed]);
  /** Status of each id as the events processed so far left it ('applied' or 'refused'). */
  const status = new Map(known);
  const recorded = new Map<string, string | null>();
  const results: EventResult[] = new Array<EventResult>(steps.length);
  const seen = new Set<string>();

  const settle = (index: number, fresh: boolean, reason: Outcome): void => {
    const id = steps[index]?.event.id ?? '';
    status.set(id, reason === undefined ? 'applied' : 'refused');
    // A fresh claim already says 'applied'; anything else is written at the end (the last one wins, as one by one).
    if (reason !== undefined || !fresh) recorded.set(id, reason ?? null);
    results[index] = reason === undefined ? APPLIED : { kind: 'refused', reason };
  };

  interface Run {
    handler: EventHandler;
    batch: NonNullable<EventHandler['batch']>;
    at: number[];
    events: CheckedEvent[];
    fresh: boolean[];
    ids: Set<string>;
  }
  let run: Run | undefined;
  const flush = async (): Promise<void> => {
    if (run === undefined) return;
    const { batch, at, events, fresh } = run;
    run = undefined;
    const reasons = await batch(ctx, events);
    at.forEach((index, k) => {
      settle(index, fresh[k] ?? false, reasons[k]);
    });
  };

  for (const [index, step] of steps.entries()) {
    const { id } = step.event;
    // Whether a repeated id is a duplicate depends on how its earlier event ended: settle it first.
    if (run?.ids.has(id) === true) await flush();
    const fresh = !seen.has(id) && claimed.has(id);
    seen.add(id);
    if (!fresh && status.get(id) === 'applied') {
      results[index] = DUPLICATE;
      continue;
    }
    const { handler, apply } = step;
    if (run !== undefined && (run.handler !== handler || apply !== undefined)) await flush();
    if (apply !== undefined) {
      settle(index, fresh, await apply({ ...ctx, eventId: id }));
      continue;
    }
    const { batch } = handler;
    if (batch === undefined) throw new Error(`event ${id} has neither a prepared step nor a run`);
    run ??= { handler, batch, at: [], events: [], fresh: [], ids: new Set() };
    run.at.push(index);
    run.events.push(step.checked);
    run.fresh.push(fresh);
    run.ids.add(id);
  }
  await flush();
  await repo.recordOutcomes(ctx, recorded);
  return results;
}
