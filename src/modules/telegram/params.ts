// A method's parameters as Telegram takes them: from several parts (query string, body, a webhook
// answer), merged with the later part winning; structured values sent as JSON text are decoded, and
// a null (of any parameter) or a structured one's empty text is a parameter not given.
import sjson from 'secure-json-parse';
import { MAX_DEPTH, TEXT_FAULTS, textFault, tooDeep } from '../../lib/nul.js';
import { badRequest } from './errors.js';

/** Parameters that carry JSON when they arrive as text (in a form or the query string). */
const STRUCTURED = new Set([
  'reply_markup',
  'entities',
  'caption_entities',
  'allowed_updates',
  'commands',
  'scope',
  'reply_parameters',
  'link_preview_options',
]);

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** What Telegram's parse error calls a parameter where it is not the parameter's name. */
const JSON_NAMES: Readonly<Record<string, string>> = { reply_markup: 'reply keyboard markup' };

/** A parameter's JSON text as its value, held to what a JSON body is held to. */
export function jsonParam(key: string, text: string): unknown {
  let parsed: unknown;
  try {
    // As Fastify reads a JSON body: a __proto__ or constructor.prototype key is refused.
    parsed = sjson.parse(text);
  } catch {
    throw badRequest(`can't parse ${JSON_NAMES[key] ?? key} JSON object`);
  }
  if (tooDeep(parsed)) throw badRequest(`${key} nests deeper than ${MAX_DEPTH} levels`);
  return parsed;
}

/** The value as the method reads it; undefined for a structured parameter given as empty text (not given). */
function structured(key: string, value: unknown): unknown {
  if (!STRUCTURED.has(key) || typeof value !== 'string') return value;
  if (value.trim() === '') return undefined;
  const parsed = jsonParam(key, value);
  // The text was checked before it was parsed, when an escape such as \u0000 was six plain characters.
  const fault = textFault(parsed);
  if (fault !== undefined) throw badRequest(`${key}: ${TEXT_FAULTS[fault]}`);
  return parsed;
}

/** The parts merged (later ones win); JSON text of structured fields decoded; files kept as Buffers. */
export function mergeParams(parts: readonly unknown[]): Record<string, unknown> {
  const merged: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const part of parts) {
    if (!isRecord(part)) continue;
    for (const [key, value] of Object.entries(part)) {
      const fault = Buffer.isBuffer(value) ? undefined : textFault(value);
      if (fault !== undefined) throw badRequest(`${key}: ${TEXT_FAULTS[fault]}`);
      // As Telegram's server reads a JSON body, a null is a parameter not given; so is empty JSON text.
      const read = value === null ? undefined : structured(key, value);
      if (read === undefined) Reflect.deleteProperty(merged, key);
      else merged[key] = read;
    }
  }
  return merged;
}
