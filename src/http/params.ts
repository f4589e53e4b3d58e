// Parameters that may arrive as a form, as JSON or in the query string (bot methods, decisions.md
// section 2; token endpoints, section 5).
// They are merged, structured fields given as JSON text are decoded, then checked with coercion.
import type { FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { AppError, Errors } from '../errors.js';
import { MAX_DEPTH, TEXT_FAULTS, textFault, tooDeep } from '../lib/nul.js';
import { compileCoercing, describeValidation, isRecord, parameterKinds } from './validation.js';

/** Fields that carry JSON inside a form field; the literal `null` and `[]` mean "not given". */
const STRUCTURED = new Set(['reply_markup', 'mention_ids', 'allowed_updates']);

/** JSON text of a form field, held to the checks the request's own body gets (app.ts preValidation). */
function parseStructured(key: string, text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError(Errors.paramError, `${key}: malformed JSON`);
  }
  if (tooDeep(value)) throw new AppError(Errors.paramError, `${key}: nests deeper than ${MAX_DEPTH} levels`);
  const fault = textFault(value);
  if (fault !== undefined) throw new AppError(Errors.paramError, `${key}: ${TEXT_FAULTS[fault]}`);
  return value;
}

function decode(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!STRUCTURED.has(key)) {
      out[key] = value;
      continue;
    }
    // In a JSON body the same "not given" arrives as a real null or an empty array.
    if (value === null || (Array.isArray(value) && value.length === 0)) continue;
    if (typeof value !== 'string') {
      out[key] = value;
      continue;
    }
    const text = value.trim();
    if (text === '' || text === 'null' || text === '[]') continue;
    out[key] = parseStructured(key, text);
  }
  return out;
}

/** Booleans as form text: Python's requests sends True as "True". */
const BOOLEAN_TEXT: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['false', false],
  ['1', true],
  ['0', false],
]);

/** The query string and the body as one set of parameters (the body's value wins), undecoded. */
const mergedOf = (request: FastifyRequest): Record<string, unknown> => ({
  ...(isRecord(request.query) ? request.query : {}),
  ...(isRecord(request.body) ? request.body : {}),
});

/** One parameter as sent, before any check: for a route that picks its reader by it. */
export const requestParam = (request: FastifyRequest, key: string): unknown => mergedOf(request)[key];

/** Parameters a request carries outside its query string and body, and where (for an error's detail). */
export interface GivenParams {
  from: string;
  params: Readonly<Record<string, string>>;
}
const NOTHING_GIVEN: GivenParams = { from: '', params: {} };

/**
 * A reader of one method's parameters from a request; throws a parameter error naming the field.
 * An optional parameter given as null or as empty text is one not given (SDKs send unset fields so;
 * decisions.md section 7: an empty `text` leaves `content` to stand in, an empty `secret_token`
 * has a key generated), and a boolean may be True or False in any case, or 1 or 0.
 * `aliases` maps another spelling to a parameter's name: either may be sent, and both only alike.
 * `given` holds parameters the request carries elsewhere (`from` names where: the token endpoints'
 * HTTP Basic credentials); a parameter, or an alias of it, sent too must be equal to it.
 */
export function requestParams<S extends TSchema>(
  schema: S,
  aliases: Readonly<Record<string, string>> = {},
): (request: FastifyRequest, given?: GivenParams) => Static<S> {
  const validate = compileCoercing(schema);
  const { booleans, optional } = parameterKinds(schema);
  // Each parameter's spellings, worked out once: its own name first, then its aliases.
  const aliasTargets = new Set(Object.values(aliases));
  const spellingsOf = new Map(
    [...aliasTargets].map((name) => [name, [name, ...Object.keys(aliases).filter((a) => aliases[a] === name)]]),
  );
  const spellings = (name: string) => spellingsOf.get(name) ?? [name];
  return (request, given = NOTHING_GIVEN) => {
    const merged = decode(mergedOf(request));
    for (const key of optional) {
      const value = merged[key];
      if (value === null || value === '') Reflect.deleteProperty(merged, key);
    }
    // A required parameter sent empty beside another spelling (or Basic credentials) that gives it
    // is one not given too: `app_id=&client_id=X` names X.
    const emptyBeside = (name: string) => {
      const names = spellings(name);
      const filled = given.params[name] !== undefined || names.some((k) => merged[k] !== undefined && merged[k] !== '');
      if (filled) for (const k of names) if (merged[k] === '') Reflect.deleteProperty(merged, k);
    };
    for (const name of aliasTargets) emptyBeside(name);
    for (const name of Object.keys(given.params)) if (!aliasTargets.has(name)) emptyBeside(name);
    for (const [name, value] of Object.entries(given.params)) {
      const differing = spellings(name).find((key) => merged[key] !== undefined && merged[key] !== value);
      if (differing !== undefined) throw new AppError(Errors.paramError, `${differing}: differs from ${given.from}`);
      merged[name] = value;
    }
    for (const [alias, name] of Object.entries(aliases)) {
      const value = merged[alias];
      if (value === undefined) continue;
      // Two different values under two spellings: no telling which one the client meant.
      if (merged[name] !== undefined && merged[name] !== value)
        throw new AppError(Errors.paramError, `${alias}: differs from ${name}`);
      merged[name] = value;
    }
    for (const key of booleans) {
      const value = merged[key];
      const read = typeof value === 'string' ? BOOLEAN_TEXT.get(value.toLowerCase()) : undefined;
      if (read !== undefined) merged[key] = read;
    }
    if (!validate(merged))
      throw new AppError(Errors.paramError, describeValidation('', validate.errors ?? []).replace(/^\./, ''));
    return merged;
  };
}
