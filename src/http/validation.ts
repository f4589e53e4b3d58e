// Two Ajv instances: query strings, path parameters and headers arrive as text and are coerced
// to the schema's types; JSON bodies are checked strictly (a number is not a string, unknown
// fields are refused, nothing is silently removed).
import { Ajv, type ErrorObject, type Options } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import type { Static, TSchema } from 'typebox';

const base: Options = { allErrors: false, removeAdditional: false, useDefaults: true, strict: false };
const coercing = new Ajv({ ...base, coerceTypes: 'array' });
const strict = new Ajv({ ...base, coerceTypes: false });

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strict : coercing).compile(schema);

/** A validator that coerces text to the schema's types (form fields, query strings) and applies defaults. */
export const compileCoercing = <S extends TSchema>(schema: S) => coercing.compile<Static<S>>(schema);

/** "body.group_id: required", "querystring.size: must be <= 100": a field and its rule. */
export function describeValidation(context: string, errors: readonly Partial<ErrorObject>[]): string {
  const first = errors[0];
  if (first === undefined) return context;
  const path = (first.instancePath ?? '').split('/').filter(Boolean).join('.');
  const at = (field: string) => [context, path, field].filter(Boolean).join('.');
  const params: Record<string, unknown> = first.params ?? {};
  if (first.keyword === 'required') return `${at(String(params.missingProperty))}: required`;
  if (first.keyword === 'additionalProperties') return `${at(String(params.additionalProperty))}: unknown field`;
  return `${at('')}: ${first.message ?? 'invalid'}`;
}
