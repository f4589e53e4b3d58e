// Applies operator event batches: validated whole first, then applied in order in one
// transaction; ids already applied are skipped; rule refusals are recorded and do not stop the rest.
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Db } from '../../db/connect.js';
import { AppError, Errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { hasNul } from '../../lib/nul.js';
import { retryOnConflict } from '../../db/retry.js';
import type { EventHandler } from './define.js';
import * as repo from './repo.js';

export interface IncomingEvent {
  id: string;
  type: string;
  data: unknown;
}

export interface BatchResult {
  applied: number;
  duplicates: number;
  refused: { id: string; reason: string }[];
}

export type EventOutcome = 'applied' | 'duplicate' | 'refused';

/** An event's envelope; checked here rather than by the route, so a bad one is reported with its index. */
const Envelope = Compile(
  Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }), type: Type.String(), data: Type.Unknown() }),
);

function envelopeProblem(e: unknown): string {
  if (typeof e !== 'object' || e === null || Array.isArray(e)) return 'an event is an object {id, type, data}';
  const [first] = Envelope.Errors(e);
  if (first?.keyword === 'required') return `${String(first.params.requiredProperties)}: required`;
  return `${first?.instancePath.split('/').filter(Boolean).join('.') ?? 'event'}: ${first?.message ?? 'invalid'}`;
}

export class EventsService {
  private readonly handlers: ReadonlyMap<string, EventHandler>;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    handlers: readonly EventHandler[],
    private readonly onOutcome: (type: string, outcome: EventOutcome) => void = () => undefined,
    private readonly onChanged: (keys: string[]) => void = () => undefined,
  ) {
    this.handlers = new Map(handlers.map((h) => [h.type, h]));
  }

  get types(): string[] {
    return [...this.handlers.keys()];
  }

  /** Checks every event (envelope, then data) before anything applies; the first bad one is named by index. */
  private validate(events: readonly unknown[]): { event: IncomingEvent; handler: EventHandler }[] {
    return events.map((e, index) => {
      const invalid = (message: string) => new AppError(Errors.invalidEvent, message, { index });
      if (!Envelope.Check(e)) throw invalid(envelopeProblem(e));
      const event: IncomingEvent = e;
      if (hasNul(event)) throw invalid('text must not contain U+0000');
      const handler = this.handlers.get(event.type);
      if (handler === undefined) throw invalid(`unknown event type "${event.type}"`);
      const problem = handler.problem(event.data);
      if (problem !== undefined) throw invalid(`${event.type}: ${problem}`);
      return { event, handler };
    });
  }

  /** `received` as the request gave it: validated here whole before anything applies. */
  async ingest(received: readonly unknown[]): Promise<BatchResult> {
    const checked = this.validate(received);
    const steps = await Promise.all(
      checked.map(async ({ event, handler }) => ({ event, apply: await handler.prepare(event.data) })),
    );
    const now = this.clock.now();
    const touched = new Set<string>();
    const touch = (key: string) => {
      touched.add(key);
    };
    const { result, outcomes } = await retryOnConflict(() =>
      this.db.k.transaction().execute(async (tx) => {
        touched.clear();
        const outcomes: EventOutcome[] = [];
        const r: BatchResult = { applied: 0, duplicates: 0, refused: [] };
        for (const { event: e, apply } of steps) {
          const fresh = await repo.claimEvent(tx, e.id, e.type, now);
          if (!fresh && (await repo.eventStatus(tx, e.id)) === 'applied') {
            r.duplicates++;
            outcomes.push('duplicate');
            continue;
          }
          const reason = await apply({ tx, now, eventId: e.id, touch });
          if (reason !== undefined || !fresh) await repo.recordOutcome(tx, e.id, reason ?? null, now);
          if (reason === undefined) {
            r.applied++;
            outcomes.push('applied');
          } else {
            r.refused.push({ id: e.id, reason });
            outcomes.push('refused');
          }
        }
        return { result: r, outcomes };
      }),
    );
    if (touched.size > 0) this.onChanged([...touched]);
    outcomes.forEach((o, i) => {
      this.onOutcome(checked[i]?.event.type ?? '', o);
    });
    return result;
  }
}
