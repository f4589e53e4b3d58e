// Two Ajv instances: query strings, path parameters and headers arrive as text and are coerced
// to the schema's types; JSON bodies are checked strictly (a number is not a string, unknown
// fields are refused, nothing is silently removed). An integer given as text (a top-level field)
// is decimal digits, with a minus sign at most: Ajv's coercion alone would read '1e3', '0x10',
// '+5', ' 5' and '5.0'. The Telegram surface reads them as Telegram's server does (compileCoercing).
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import type { Static, TSchema } from 'typebox';

const base: Options = { allErrors: false, removeAdditional: false, useDefaults: true, strict: false };
const coercing = new Ajv({ ...base, coerceTypes: 'array' });
const strict = new Ajv({ ...base, coerceTypes: false });

/** Where the checked value sits (its parent and key), which Ajv needs to replace the value itself. */
type DataValidationCxt = Parameters<ValidateFunction>[1];

/** The one spelling of an integer as text, as the operator feed's `after` cursor has always been read. */
const INTEGER_TEXT = /^-?\d+$/;

const isIntegerSchema = (s: unknown): boolean => isRecord(s) && s.type === 'integer';

/** Ajv's own answer to a value that is no integer, so every surface words it as before. */
const notInteger = (path: string) => ({
  keyword: 'type',
  instancePath: path,
  schemaPath: '#/type',
  params: { type: 'integer' },
  message: 'must be integer',
});

/**
 * Where `schema` wants an integer (itself, or one of its properties): the instance path and a
 * reader of the value there. Unions are left to Ajv: text that is no integer may be their text.
 */
interface IntegerSlot {
  path: string;
  read: (data: unknown) => unknown;
  /** Removes an empty text where the property has a default: `chain_id=` is chain 1, as an absent one is. */
  unsetBlank: (data: unknown) => void;
}

const keepAll = (): void => undefined;

function integerSlots(schema: unknown): IntegerSlot[] {
  if (isIntegerSchema(schema)) return [{ path: '', read: (data) => data, unsetBlank: keepAll }];
  const properties = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
  return Object.entries(properties)
    .filter(([, s]) => isIntegerSchema(s))
    .map(([key, s]) => ({
      path: `/${key}`,
      read: (data) => (isRecord(data) ? data[key] : undefined),
      unsetBlank:
        isRecord(s) && 'default' in s
          ? (data) => {
              if (isRecord(data) && data[key] === '') Reflect.deleteProperty(data, key);
            }
          : keepAll,
    }));
}

/** Runs `compiled` after refusing, in `slots`, an integer given as text of another spelling. */
function digitsFirst<T>(compiled: ValidateFunction<T>, slots: IntegerSlot[]): ValidateFunction<T> {
  const own: Pick<ValidateFunction<T>, 'errors' | 'schema' | 'schemaEnv'> = {
    errors: null,
    schema: compiled.schema,
    // Ajv's own functions have one; Fastify hands the parent (for coercing the value itself) only then.
    schemaEnv: compiled.schemaEnv,
  };
  const validate = Object.assign(function check(data: unknown, context?: DataValidationCxt): data is T {
    for (const { path, read, unsetBlank } of slots) {
      unsetBlank(data);
      const value = read(data);
      // A repeated query parameter arrives as an array of texts: each is held to it.
      const texts = (Array.isArray(value) ? value : [value]).filter((v) => typeof v === 'string');
      if (texts.some((t) => !INTEGER_TEXT.test(t))) {
        validate.errors = [notInteger(path)];
        return false;
      }
    }
    const valid = compiled(data, context);
    validate.errors = compiled.errors;
    return valid;
  }, own);
  return validate;
}

/**
 * Compiles `schema` with coercion. An integer given as text (the schema itself, or one of its
 * top-level properties) must be decimal digits, unless `integerText` is 'any-number': Telegram's
 * own server reads `timeout=10.0` as 10, and its clients may send that. With digits, an empty text
 * where the property has a default is that default (`chain_id=`, as SDKs send an unset field).
 */
function compileText<T>(schema: object, integerText: 'digits' | 'any-number' = 'digits'): ValidateFunction<T> {
  const compiled = coercing.compile<T>(schema);
  const slots = integerText === 'digits' ? integerSlots(schema) : [];
  return slots.length === 0 ? compiled : digitsFirst(compiled, slots);
}

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
    const compile = httpPart === 'body' ? (s: object) => strict.compile(s) : compileText;
    if (eager) return compile(schema);
    let compiled: ValidateFunction | undefined;
    const validate: Validate = Object.assign(
      (data: unknown, context?: DataValidationCxt): boolean => {
        compiled ??= compile(schema);
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
export const compileCoercing = <S extends TSchema>(schema: S, integerText: 'digits' | 'any-number' = 'digits') =>
  compileText<Static<S>>(schema, integerText);

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
