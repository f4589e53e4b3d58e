// Applies operator event batches: validated whole first, then applied in order in one
// transaction; ids already applied are skipped; rule refusals are recorded and do not stop the rest.
import type { Db } from '../../db/connect.js';
import { AppError, Errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
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

export class EventsService {
  private readonly handlers: ReadonlyMap<string, EventHandler>;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    handlers: readonly EventHandler[],
    private readonly onOutcome: (type: string, outcome: EventOutcome) => void = () => undefined,
  ) {
    this.handlers = new Map(handlers.map((h) => [h.type, h]));
  }

  get types(): string[] {
    return [...this.handlers.keys()];
  }

  private validate(events: readonly IncomingEvent[]): EventHandler[] {
    return events.map((e, index) => {
      const handler = this.handlers.get(e.type);
      if (handler === undefined) throw new AppError(Errors.invalidEvent, `unknown event type "${e.type}"`, { index });
      const problem = handler.problem(e.data);
      if (problem !== undefined) throw new AppError(Errors.invalidEvent, `${e.type}: ${problem}`, { index });
      return handler;
    });
  }

  async ingest(events: readonly IncomingEvent[]): Promise<BatchResult> {
    const handlers = this.validate(events);
    const now = this.clock.now();
    const outcomes: EventOutcome[] = [];
    const result = await this.db.k.transaction().execute(async (tx) => {
      const r: BatchResult = { applied: 0, duplicates: 0, refused: [] };
      for (const [i, e] of events.entries()) {
        const handler = handlers[i];
        if (handler === undefined) continue;
        const fresh = await repo.claimEvent(tx, e.id, e.type, now);
        if (!fresh && (await repo.eventStatus(tx, e.id)) === 'applied') {
          r.duplicates++;
          outcomes.push('duplicate');
          continue;
        }
        const reason = await handler.apply({ tx, now, eventId: e.id }, e.data);
        if (reason !== undefined || !fresh) await repo.recordOutcome(tx, e.id, reason ?? null, now);
        if (reason === undefined) {
          r.applied++;
          outcomes.push('applied');
        } else {
          r.refused.push({ id: e.id, reason });
          outcomes.push('refused');
        }
      }
      return r;
    });
    outcomes.forEach((o, i) => {
      this.onOutcome(events[i]?.type ?? '', o);
    });
    return result;
  }
}
