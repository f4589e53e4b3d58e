// How a domain declares the operator events it handles: a schema for the data and an apply
// function that runs inside the batch's transaction and either applies or names a refusal.
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Dialect } from '../../db/connect.js';
import type { Work } from '../../db/work.js';
import { describeValidation } from '../../http/validation.js';
import { namedFields } from './named.js';

/** The batch's transaction, shared by its events. */
export interface EventContext extends Work {
  readonly eventId: string;
}

/** The batch's transaction as a run of events of one type sees it (set-based SQL differs by store). */
export interface BatchContext extends Work {
  readonly dialect: Dialect;
}

/**
 * What a module remembers for the length of one batch's transaction, so that a later run of the
 * same batch need not read it again (the users a batch created, say). Kept by the context object
 * the pipeline hands every run of a batch: a retried attempt gets a new one and starts afresh.
 */
export class PerBatch<T> {
  private readonly states = new WeakMap<BatchContext, T>();

  constructor(private readonly initial: () => T) {}

  of(ctx: BatchContext): T {
    let state = this.states.get(ctx);
    if (state === undefined) {
      state = this.initial();
      this.states.set(ctx, state);
    }
    return state;
  }
}

/** A refusal reason (`unknown_user`, ...); undefined when the event was applied. */
export type Outcome = string | undefined;

/** The step that applies one event inside the batch's transaction. */
export type ApplyStep = (ctx: EventContext) => Promise<Outcome>;

/** An event whose data fits its handler's schema (checked once, by `EventHandler.check`). */
export interface CheckedEvent {
  /** The data as checked: only the fields the schema names. */
  readonly data: unknown;
  /**
   * True for an event that applies on its own (through `prepare`): every event of a type without
   * `batch`, and those of a batched type that its `alone` picks, which end the run before them.
   */
  readonly alone: boolean;
  /**
   * Does the event's slow outside work (DNS lookups) before the batch's transaction opens, and
   * answers the step that applies it inside. Only events that apply on their own need it.
   */
  prepare(): Promise<ApplyStep>;
}

export interface EventHandler {
  readonly type: string;
  readonly schema: TSchema;
  /** The event when `data` fits the schema (fields it does not name dropped), else "field: rule". */
  check(data: unknown): CheckedEvent | string;
  /**
   * Applies a run of consecutive events this handler checked, together, with exactly the outcomes,
   * rows and touched keys of their `prepare` steps applied one after another.
   * Absent: the pipeline applies each event on its own.
   */
  readonly batch?: (ctx: BatchContext, events: readonly CheckedEvent[]) => Promise<Outcome[]>;
  /**
   * Takes, at the start of the batch's transaction, the rows this type's events will lock, in one
   * order (PostgreSQL): taken one event at a time, in the batch's order, they could close a cycle
   * with another transaction that takes the same rows in order (a transfer's ledger accounts).
   */
  readonly lockFirst?: (ctx: BatchContext, events: readonly CheckedEvent[]) => Promise<void>;
}

/** The step of one event: what `prepare` finds outside the transaction is handed to `apply`. */
function stepOf<D, P>(
  apply: (ctx: EventContext, data: D, prepared: P | undefined) => Promise<Outcome>,
  prepare: ((data: D) => Promise<P>) | undefined,
  data: D,
): () => Promise<ApplyStep> {
  return async () => {
    const prepared = prepare === undefined ? undefined : await prepare(data);
    return (ctx) => apply(ctx, data, prepared);
  };
}

/**
 * Checks an event type's data against `schema`. Fields the schema does not name are dropped, not
 * refused: operator-api.md calls an event malformed only for an unknown type or a missing or
 * ill-typed field, and the application may send more than the platform keeps. Dropped here, they
 * reach no row on either way of applying a batch.
 */
function dataChecker<S extends TSchema>(schema: S): (data: unknown) => { data: Static<S> } | string {
  const validator = Compile(schema);
  const pick = namedFields(schema);
  return (data) => {
    const named = pick(data);
    return validator.Check(named) ? { data: named } : describeValidation('data', validator.Errors(named));
  };
}

/**
 * `prepare` (optional) runs before the transaction, so nothing slow holds the store's write
 * lock; what it finds is handed to `apply`.
 */
export function defineEvent<S extends TSchema, P = undefined>(
  type: string,
  schema: S,
  apply: (ctx: EventContext, data: Static<S>, prepared: P | undefined) => Promise<Outcome>,
  prepare?: (data: Static<S>) => Promise<P>,
): EventHandler {
  const checkData = dataChecker(schema);
  return {
    type,
    schema,
    check(received) {
      const checked = checkData(received);
      if (typeof checked === 'string') return checked;
      return { data: checked.data, alone: true, prepare: stepOf(apply, prepare, checked.data) };
    },
  };
}

/**
 * An event whose runs also apply together through `batch` (see EventHandler.batch), except those
 * `alone` picks: they apply on their own, with what `prepare` found for them outside the transaction.
 */
export function defineBatchedEvent<S extends TSchema, P = undefined>(
  type: string,
  schema: S,
  apply: (ctx: EventContext, data: Static<S>, prepared: P | undefined) => Promise<Outcome>,
  batch: (ctx: BatchContext, data: readonly Static<S>[]) => Promise<Outcome[]>,
  single?: { prepare: (data: Static<S>) => Promise<P>; alone: (data: Static<S>) => boolean },
): EventHandler {
  const checkData = dataChecker(schema);
  /** An event this handler checked: its runs read the data back from it. */
  class Checked implements CheckedEvent {
    constructor(
      readonly data: Static<S>,
      readonly alone: boolean,
    ) {}

    prepare(): Promise<ApplyStep> {
      return stepOf(apply, single?.prepare, this.data)();
    }
  }
  const mine = (event: CheckedEvent): event is Checked => event instanceof Checked;
  const dataOf = (event: CheckedEvent): Static<S> => {
    if (!mine(event)) throw new Error(`event ${type} applied without validation`);
    return event.data;
  };
  return {
    type,
    schema,
    check(received) {
      const checked = checkData(received);
      if (typeof checked === 'string') return checked;
      return new Checked(checked.data, single?.alone(checked.data) ?? false);
    },
    batch: (ctx, events) => batch(ctx, events.map(dataOf)),
  };
}
