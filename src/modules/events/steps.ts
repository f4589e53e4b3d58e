// What the two ways of applying a batch (pipeline.ts, reference.ts) take and give.
import type { EventContext, EventHandler, Outcome } from './define.js';

export interface IncomingEvent {
  id: string;
  type: string;
  data: unknown;
}

/** A validated event, its handler, and its step prepared outside the transaction. */
export interface Step {
  readonly event: IncomingEvent;
  readonly handler: EventHandler;
  readonly apply: (ctx: EventContext) => Promise<Outcome>;
}

export type EventResult = { kind: 'applied' } | { kind: 'duplicate' } | { kind: 'refused'; reason: string };

/** One result per step, in order. */
export type Applied = EventResult[];
