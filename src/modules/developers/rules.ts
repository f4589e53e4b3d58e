// What a developer may type for a bot or an app, checked in one place for both front doors (the
// developer site's forms and the assistant's chat); a broken rule names the field.
import { AppError, Errors } from '../../errors.js';

/** Lengths count code points, as JSON Schema's maxLength does. */
export const NAME_MAX = 64;
export const DESCRIPTION_MAX = 512;
export const URL_MAX = 2048;
export const REDIRECT_URIS_MAX = 20;

// eslint-disable-next-line no-control-regex -- control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

const invalid = (detail: string): AppError => new AppError(Errors.invalidRequest, detail);

export function botName(text: string): string {
  const name = text.trim();
  if (name.length === 0) throw invalid('name: must not be empty');
  if (Array.from(name).length > NAME_MAX) throw invalid(`name: at most ${NAME_MAX} characters`);
  if (CONTROL.test(name)) throw invalid('name: must be one line of text');
  return name;
}

export function description(text: string): string {
  const d = text.trim();
  if (Array.from(d).length > DESCRIPTION_MAX) throw invalid(`description: at most ${DESCRIPTION_MAX} characters`);
  if (d.includes('\u0000')) throw invalid('description: must not contain U+0000');
  return d;
}

function absoluteUrl(field: string, text: string, schemes: readonly string[]): URL {
  if (text.length > URL_MAX) throw invalid(`${field}: at most ${URL_MAX} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(`${field}: not a valid URL`);
  }
  if (!schemes.includes(url.protocol))
    throw invalid(`${field}: must start with ${schemes.map((s) => `${s}//`).join(' or ')}`);
  if (CONTROL.test(text) || /\s/.test(text)) throw invalid(`${field}: must not contain spaces`);
  return url;
}

/** An avatar is an https image address, or empty for none. */
export function avatar(text: string): string {
  const a = text.trim();
  if (a === '') return '';
  absoluteUrl('avatar', a, ['https:']);
  return a;
}

/** Redirect URIs are compared character for character on the authorize page, so they are kept as typed. */
export function redirectUris(list: readonly string[]): string[] {
  const uris = [...new Set(list.map((u) => u.trim()).filter((u) => u !== ''))];
  if (uris.length > REDIRECT_URIS_MAX) throw invalid(`redirect_uris: at most ${REDIRECT_URIS_MAX}`);
  for (const uri of uris) {
    if (absoluteUrl('redirect_uris', uri, ['https:', 'http:']).hash !== '') {
      throw invalid('redirect_uris: must not contain a fragment (#)');
    }
  }
  return uris;
}
