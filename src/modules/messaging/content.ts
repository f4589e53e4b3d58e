// What each message type of the two generations requires, with precise parameter errors.
import { AppError, Errors } from '../../errors.js';
import type { Content } from './service.js';

interface Fields {
  object_name: string;
  title?: string | undefined;
  content?: string | undefined;
  message?: string | undefined;
}

type Shape = 'text' | 'rich' | 'message';

/** Which field carries the text for each object_name, and whether it is rich markup. */
const TYPES: Record<string, { shape: Shape; titleRequired: boolean }> = {
  text: { shape: 'text', titleRequired: false },
  richtext: { shape: 'rich', titleRequired: false },
  'RC:TxtMsg': { shape: 'message', titleRequired: false },
  'RCD:Graphic': { shape: 'rich', titleRequired: true },
  'RCD:Command': { shape: 'message', titleRequired: false },
};

const required = (field: string, objectName: string) =>
  new AppError(Errors.paramError, `body.${field}: required, not empty, for ${objectName}`);

export function contentOf(body: Fields, allowed: readonly string[], richTitleRequired = false): Content {
  const type = allowed.includes(body.object_name) ? TYPES[body.object_name] : undefined;
  if (type === undefined) {
    throw new AppError(Errors.paramError, `body.object_name: must be one of ${allowed.join(', ')}`);
  }
  const field = type.shape === 'message' ? 'message' : 'content';
  const text = body[field];
  if (text === undefined || text === '') throw required(field, body.object_name);
  const rich = type.shape === 'rich';
  const title = body.title ?? null;
  if (rich && (type.titleRequired || richTitleRequired) && (title === null || title === '')) {
    throw required('title', body.object_name);
  }
  return { objectName: body.object_name, rich, title, content: text, replyMarkup: null };
}
