// What the two ways of applying a batch (pipeline.ts, reference.ts) take and give.
import type { ApplyStep, CheckedEvent, EventHandler } from './define.js';

export interface IncomingEvent {
  id: string;
  type: string;
  data: unknown;
}

/**
 * A validated event and its handler; `apply` is its step, prepared outside the transaction, when
 * it applies on its own, and undefined when it applies in a run of its type (handler.batch).
 */
export interface Step {
  readonly event: IncomingEvent;
  readonly handler: EventHandler;
  readonly checked: CheckedEvent;
  readonly apply: ApplyStep | undefined;
}

export type EventResult = { kind: 'applied' } | { kind: 'duplicate' } | { kind: 'refused'; reason: string };

/** One result per step, in order. */
export type Applied = EventResult[];
