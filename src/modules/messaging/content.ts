// What each message type of the two generations requires, with precise parameter errors.
import { AppError, Errors } from '../../errors.js';
import type { Content } from './service.js';

/** A send body after its schema: each type's own fields are typed there, the rest is ignored. */
interface Fields {
  object_name: string;
  title?: unknown;
  content?: unknown;
  message?: unknown;
}

/** Which field carries the text, whether it is rich markup, and whether the type has a title. */
const TYPES: Record<string, { field: 'content' | 'message'; rich: boolean; titled: boolean }> = {
  text: { field: 'content', rich: false, titled: true },
  richtext: { field: 'content', rich: true, titled: true },
  'RC:TxtMsg': { field: 'message', rich: false, titled: false },
  'RCD:Graphic': { field: 'content', rich: true, titled: true },
  'RCD:Command': { field: 'message', rich: false, titled: false },
};

/**
 * The types a path takes. `named` are the ones a refusal lists (unchanged since clients match on
 * that detail); `alsoAccepted` are taken too (decisions.md section 7: RCD:Graphic on the private paths).
 */
export interface Accepted {
  named: readonly string[];
  alsoAccepted?: readonly string[];
}

const required = (field: string, objectName: string) =>
  new AppError(Errors.paramError, `body.${field}: required, not empty, for ${objectName}`);

/** A group's rich message needs a title; a private one does not (seed-api.md, decisions.md section 7). */
export function contentOf(body: Fields, accepted: Accepted, chat: 'group' | 'private'): Content {
  const name = body.object_name;
  const known = accepted.named.includes(name) || (accepted.alsoAccepted ?? []).includes(name);
  const type = known ? TYPES[name] : undefined;
  if (type === undefined) {
    throw new AppError(Errors.paramError, `body.object_name: must be one of ${accepted.named.join(', ')}`);
  }
  const content = body[type.field];
  if (typeof content !== 'string' || content === '') throw required(type.field, name);
  const title = type.titled && typeof body.title === 'string' ? body.title : null;
  if (type.rich && chat === 'group' && (title === null || title === '')) throw required('title', name);
  return { objectName: name, rich: type.rich, title, content, replyMarkup: null };
}
