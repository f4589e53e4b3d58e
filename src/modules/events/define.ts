// How a domain declares the operator events it handles: a schema for the data and an apply
// function that runs inside the batch's transaction and either applies or names a refusal.
import type { Kysely } from 'kysely';
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { DB } from '../../db/types.js';

export interface EventContext {
  readonly tx: Kysely<DB>;
  readonly now: number;
  readonly eventId: string;
  /** Announces what the event changed (lib/invalidation.ts keys): cached copies are dropped after commit. */
  readonly touch: (key: string) => void;
}

/** A refusal reason (`unknown_user`, ...); undefined when the event was applied. */
export type Outcome = string | undefined;

export interface EventHandler {
  readonly type: string;
  readonly schema: TSchema;
  /** Undefined when `data` fits the schema, else "field: rule". */
  problem(data: unknown): string | undefined;
  apply(ctx: EventContext, data: unknown): Promise<Outcome>;
}

export function defineEvent<S extends TSchema>(
  type: string,
  schema: S,
  apply: (ctx: EventContext, data: Static<S>) => Promise<Outcome>,
): EventHandler {
  const validator = Compile(schema);
  return {
    type,
    schema,
    problem(data) {
      if (validator.Check(data)) return undefined;
      const [first] = validator.Errors(data);
      if (first === undefined) return 'invalid';
      const path = first.instancePath.split('/').filter(Boolean).join('.');
      const params: Record<string, unknown> = first.params;
      const named = (key: string) => {
        const v = params[key];
        return Array.isArray(v) ? v.join(', ') : String(v);
      };
      if (first.schemaPath.endsWith('/additionalProperties')) return `data.${path}: unknown field`;
      if (first.keyword === 'required') return `data.${named('requiredProperties')}: required`;
      if (first.keyword === 'additionalProperties') return `data.${named('additionalProperties')}: unknown field`;
      return `data${path === '' ? '' : `.${path}`}: ${first.message}`;
    },
    apply(ctx, data) {
      if (!validator.Check(data)) return Promise.reject(new Error(`event ${type} applied without validation`));
      return apply(ctx, data);
    },
  };
}
