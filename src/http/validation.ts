// Two Ajv instances: query strings, path parameters and headers arrive as text and are coerced
// to the schema's types; JSON bodies are checked strictly (a number is not a string, unknown
// fields are refused, nothing is silently removed).
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import type { Static, TSchema } from 'typebox';

const base: Options = { allErrors: false, removeAdditional: false, useDefaults: true, strict: false };
const coercing = new Ajv({ ...base, coerceTypes: 'array' });
const strict = new Ajv({ ...base, coerceTypes: false });

/** Where the checked value sits (its parent and key), which Ajv needs to replace the value itself. */
type DataValidationCxt = Parameters<ValidateFunction>[1];

/** What Fastify calls per request: Ajv's answer, and its errors read off the function itself. */
interface Validate {
  (data: unknown, context?: DataValidationCxt): boolean;
  errors?: ValidateFunction['errors'];
  /** Fastify hands a validator that has one the request as the parent of the value it checks. */
  schemaEnv: true;
}

/**
 * Route validators, compiled by Ajv on a route's first request instead of at start-up: a process
 * holds code only for the routes it serves (the idle server's heap in use went from 28-29 to
 * 25-26 MB, docs/SCALING.md section 1). `eager` compiles at once, so a test of the whole
 * application fails on a schema Ajv cannot compile rather than on a first request. Like Ajv's own
 * function, the wrapper takes the data's parent (Fastify passes it to a function with a
 * `schemaEnv`), so Ajv can coerce or default the value itself, not only what is inside it.
 */
export function validatorCompiler(eager: boolean): FastifySchemaCompiler<object> {
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    if (eager) return ajv.compile(schema);
    let compiled: ValidateFunction | undefined;
    const validate: Validate = Object.assign(
      (data: unknown, context?: DataValidationCxt): boolean => {
        compiled ??= ajv.compile(schema);
        const valid = compiled(data, context);
        validate.errors = compiled.errors;
        return valid;
      },
      { schemaEnv: true as const },
    );
    return validate;
  };
}

/** A validator that coerces text to the schema's types (form fields, query strings) and applies defaults. */
export const compileCoercing = <S extends TSchema>(schema: S) => coercing.compile<Static<S>>(schema);

/** A JSON object (not an array, not null). */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** An object schema's parameters: those of boolean type, and those it does not require (or gives a default). */
export function parameterKinds(schema: TSchema): { booleans: string[]; optional: Set<string> } {
  const properties = 'properties' in schema ? schema.properties : undefined;
  const required = 'required' in schema && Array.isArray(schema.required) ? schema.required : [];
  if (!isRecord(properties)) return { booleans: [], optional: new Set() };
  const names = Object.keys(properties);
  const field = (k: string): Record<string, unknown> => {
    const p = properties[k];
    return isRecord(p) ? p : {};
  };
  return {
    booleans: names.filter((k) => field(k).type === 'boolean'),
    optional: new Set(names.filter((k) => !required.includes(k) || 'default' in field(k))),
  };
}

/** One failed check, as Ajv (route schemas) and TypeBox's compiler (event envelopes and data) report it. */
export interface ValidationIssue {
  readonly keyword?: string;
  readonly instancePath?: string;
  readonly schemaPath?: string;
  readonly params?: Readonly<Record<string, unknown>>;
  readonly message?: string;
}

/**
 * The one wording of a validation failure, for every surface: "body.group_id: required",
 * "querystring.size: must be <= 100", "data.color: unknown field": the first failed check's field
 * (after `context`) and its rule.
 */
export function describeValidation(context: string, errors: readonly ValidationIssue[]): string {
  const first = errors[0];
  if (first === undefined) return context;
  const path = (first.instancePath ?? '').split('/').filter(Boolean).join('.');
  const at = (field: string) => [context, path, field].filter(Boolean).join('.');
  const params = first.params ?? {};
  // Ajv names one field (missingProperty, additionalProperty), TypeBox a list of them.
  const named = (one: string, list: string) => {
    const v = params[one] ?? params[list];
    return Array.isArray(v) ? v.join(', ') : String(v);
  };
  if (first.keyword === 'required') return `${at(named('missingProperty', 'requiredProperties'))}: required`;
  if (first.keyword === 'additionalProperties') {
    return `${at(named('additionalProperty', 'additionalProperties'))}: unknown field`;
  }
  // TypeBox reports an unknown field first as the `false` schema it broke, at the field's own path.
  if (first.keyword === 'boolean' && first.schemaPath?.endsWith('/additionalProperties') === true) {
    return `${at('')}: unknown field`;
  }
  return `${at('')}: ${first.message ?? 'invalid'}`;
}
