// Applies operator event batches: validated whole first, then applied in order in one
// transaction; ids already applied are skipped; rule refusals are recorded and do not stop the rest.
import { Type, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Db } from '../../db/connect.js';
import type { UnitOfWork } from '../../db/work.js';
import { AppError, Errors } from '../../errors.js';
import { describeValidation } from '../../http/validation.js';
import { TEXT_FAULTS, textFault } from '../../lib/nul.js';
import type { BatchContext, CheckedEvent, EventHandler } from './define.js';
import { applySetBased } from './pipeline.js';
import { applyOneByOne } from './reference.js';
import type { IncomingEvent, Step } from './steps.js';

export type { IncomingEvent } from './steps.js';

export interface BatchResult {
  applied: number;
  duplicates: number;
  refused: { id: string; reason: string }[];
}

/** How a batch is applied: set-based (pipeline.ts), or one event at a time (reference.ts, the reference). */
export type ApplyMode = 'set-based' | 'one-by-one';

export type EventOutcome = 'applied' | 'duplicate' | 'refused';

/** An event's envelope; checked here rather than by the route, so a bad one is reported with its index. */
const Envelope = Compile(
  Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }), type: Type.String(), data: Type.Unknown() }),
);

function envelopeProblem(e: unknown): string {
  if (typeof e !== 'object' || e === null || Array.isArray(e)) return 'an event is an object {id, type, data}';
  return describeValidation('', Envelope.Errors(e));
}

/**
 * Each handler that names rows to lock first takes them for its events of the batch, handlers in
 * the order of their type: in the batch's order, [X, Y] and [Y, X] would take the two sets in
 * opposite orders.
 */
async function lockFirst(ctx: BatchContext, steps: readonly Step[]): Promise<void> {
  const byHandler = new Map<EventHandler, CheckedEvent[]>();
  for (const { handler, checked } of steps) {
    if (handler.lockFirst === undefined) continue;
    const events = byHandler.get(handler) ?? [];
    events.push(checked);
    byHandler.set(handler, events);
  }
  const ordered = [...byHandler].sort(([a], [b]) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  for (const [handler, events] of ordered) await handler.lockFirst?.(ctx, events);
}

export class EventsService {
  private readonly handlers: ReadonlyMap<string, EventHandler>;

  constructor(
    private readonly db: Db,
    private readonly work: UnitOfWork,
    handlers: readonly EventHandler[],
    private readonly onOutcome: (type: string, outcome: EventOutcome) => void = () => undefined,
  ) {
    this.handlers = new Map(handlers.map((h) => [h.type, h]));
  }

  get types(): string[] {
    return [...this.handlers.keys()];
  }

  /** Each event type with the schema of its `data`, for the document. */
  get schemas(): { type: string; schema: TSchema }[] {
    return [...this.handlers.values()].map(({ type, schema }) => ({ type, schema }));
  }

  /** Checks every event (envelope, then data) before anything applies; the first bad one is named by index. */
  private validate(events: readonly unknown[]): Omit<Step, 'apply'>[] {
    return events.map((e, index) => {
      const checked = this.checkOne(e);
      if (typeof checked === 'string') throw new AppError(Errors.invalidEvent, checked, { index });
      return checked;
    });
  }

  /** The event with its handler when it passes (envelope, text, type, data), else what is wrong with it. */
  private checkOne(e: unknown): Omit<Step, 'apply'> | string {
    if (!Envelope.Check(e)) return envelopeProblem(e);
    const event: IncomingEvent = { id: e.id, type: e.type, data: e.data };
    const fault = textFault([event.id, event.type]);
    if (fault !== undefined) return TEXT_FAULTS[fault];
    const handler = this.handlers.get(event.type);
    if (handler === undefined) return `unknown event type "${event.type}"`;
    const checked = handler.check(event.data);
    if (typeof checked === 'string') return `${event.type}: ${checked}`;
    // Only the fields kept are stored, so only their text must be storable (keys the envelope does not name are ignored).
    const dataFault = textFault(checked.data);
    return dataFault === undefined ? { event, handler, checked } : TEXT_FAULTS[dataFault];
  }

  /** `received` as the request gave it: validated here whole before anything applies. */
  async ingest(received: readonly unknown[]): Promise<BatchResult> {
    return (await this.apply(received, 'set-based')).result;
  }

  /** Applies the batch the way `mode` says; answers the result and the cache keys it touched (announced after commit). */
  async apply(received: readonly unknown[], mode: ApplyMode): Promise<{ result: BatchResult; touched: string[] }> {
    const checked = this.validate(received);
    // Only an event that applies on its own needs its step before the transaction; one by one, every one does.
    const own = (c: CheckedEvent) => mode === 'one-by-one' || c.alone;
    const prepared = await Promise.all(checked.filter((c) => own(c.checked)).map((c) => c.checked.prepare()));
    let next = 0;
    const steps = checked.map(({ event, handler, checked: c }): Step => ({
      event,
      handler,
      checked: c,
      apply: own(c) ? prepared[next++] : undefined,
    }));
    const applyAll = mode === 'set-based' ? applySetBased : applyOneByOne;
    const { result: outcomes, touched } = await this.work.runTouching(async (w) => {
      const ctx = { ...w, dialect: this.db.dialect };
      await lockFirst(ctx, steps);
      return applyAll(ctx, steps);
    });
    const result: BatchResult = { applied: 0, duplicates: 0, refused: [] };
    outcomes.forEach((o, i) => {
      const event = steps[i]?.event;
      if (o.kind === 'applied') result.applied++;
      else if (o.kind === 'duplicate') result.duplicates++;
      else result.refused.push({ id: event?.id ?? '', reason: o.reason });
      this.onOutcome(event?.type ?? '', o.kind);
    });
    return { result, touched };
  }
}
