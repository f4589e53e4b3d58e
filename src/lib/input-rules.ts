// What a developer may type for an app or a bot: names, descriptions, avatars, redirect URIs and
// the text of a Webhook URL. One set of rules for every front door (developer site, assistant,
// operator API, CLI, bot methods); a broken rule names the field. The network checks of a Webhook
// URL (DNS, private addresses) stay with delivery (modules/delivery/webhook-url.ts).
import { AppError, Errors } from '../errors.js';

/** Lengths count code points, as JSON Schema's maxLength does. */
export const NAME_MAX = 64;
export const DESCRIPTION_MAX = 512;
export const URL_MAX = 2048;
export const REDIRECT_URIS_MAX = 20;

// eslint-disable-next-line no-control-regex -- control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

const invalid = (field: string, reason: string): AppError => new AppError(Errors.invalidRequest, `${field}: ${reason}`);

const codePoints = (text: string): number => Array.from(text).length;

/**
 * The bot-creation assistant's name (its user row is made by db/migrations/0003_developers.ts),
 * kept here so the name rule can refuse it without lib/ reaching into db/ or a module.
 */
export const ASSISTANT_NAME = 'Bot Assistant';

// Names are shown beside messages: what breaks the line beyond C0 (C1 controls such as NEL, the
// line and paragraph separators) or hides or reorders text (zero-width, bidi controls) is refused.
// The joiners U+200C and U+200D are not: Persian words and emoji sequences (a family) need them,
// and a name of joiners alone still shows nothing (VISIBLE below).
const LINE_BREAKING = /[\u0080-\u009f\u2028\u2029]/;
const HIDDEN = /[\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;
// Not space, not a control or format character, not one that renders as nothing (Hangul fillers,
// variation selectors: Default_Ignorable_Code_Point) and not the braille blank.
const VISIBLE = /[^\p{White_Space}\p{C}\p{Default_Ignorable_Code_Point}\u2800]/u;
/** What two names that look alike share: NFKC (fullwidth, ligatures), no ignorables, one space, one case. */
const lookalike = (text: string): string =>
  text
    .normalize('NFKC')
    .replace(/\p{Default_Ignorable_Code_Point}/gu, '')
    .replace(/\s+/gu, ' ')
    .trim()
    .toLowerCase();
const RESERVED = new Set([ASSISTANT_NAME].map(lookalike));

/**
 * The name of an app or a bot: one line, trimmed, 1 to 64 characters, with a visible character and
 * nothing hidden, and not the assistant's name in any case or width (a bot could pose as it).
 */
export function name(text: string, field = 'name'): string {
  const n = text.trim();
  if (n.length === 0) throw invalid(field, 'must not be empty');
  if (codePoints(n) > NAME_MAX) throw invalid(field, `at most ${NAME_MAX} characters`);
  if (CONTROL.test(n) || LINE_BREAKING.test(n)) throw invalid(field, 'must be one line of text');
  if (HIDDEN.test(n)) throw invalid(field, 'must not contain invisible or direction-changing characters');
  if (!VISIBLE.test(n)) throw invalid(field, 'must contain a visible character');
  if (RESERVED.has(lookalike(n))) throw invalid(field, "must not be the assistant's name");
  return n;
}

/** A bot's description: trimmed, at most 512 characters, may be empty. */
export function description(text: string, field = 'description'): string {
  const d = text.trim();
  if (codePoints(d) > DESCRIPTION_MAX) throw invalid(field, `at most ${DESCRIPTION_MAX} characters`);
  if (d.includes('\u0000')) throw invalid(field, 'must not contain U+0000');
  return d;
}

type Scheme = 'https:' | 'http:';

const REDIRECT_SCHEMES: readonly Scheme[] = ['https:', 'http:'];

const mustStartWith = (schemes: readonly Scheme[]): string =>
  `must start with ${schemes.map((s) => `${s}//`).join(' or ')}`;

/**
 * The URL `text` is, when it is an absolute URL of at most 2048 characters with one of `schemes`
 * and no spaces or control characters; else why not (`wrongScheme` in place of "must start with
 * https://" when the caller has a more helpful word for it).
 */
export function webUrl(text: string, schemes: readonly Scheme[], wrongScheme?: string): URL | string {
  if (text.length > URL_MAX) return `at most ${URL_MAX} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a valid URL';
  }
  if (!schemes.some((s) => s === url.protocol)) {
    return wrongScheme ?? mustStartWith(schemes);
  }
  if (CONTROL.test(text) || /\s/.test(text)) return 'must not contain spaces';
  return url;
}

function checkedUrl(field: string, text: string, schemes: readonly Scheme[]): URL {
  const url = webUrl(text, schemes);
  if (typeof url === 'string') throw invalid(field, url);
  return url;
}

/** An avatar is an https image address, or empty for none. */
export function avatar(text: string, field = 'avatar'): string {
  const a = text.trim();
  if (a !== '') checkedUrl(field, a, ['https:']);
  return a;
}

/**
 * Redirect URIs are compared character for character on the authorize page, so they are kept as
 * typed (trimmed, without repeats or empty lines): at most 20 http(s) addresses without a fragment,
 * each at most 2048 bytes. The scheme is written `https://` or `http://` as such: RFC 3986 lets a
 * scheme be in any case, but clients send it in lower case (a URL parser writes it so), and
 * "HTTPS://a/cb" or "https:/a/cb" (which the parser reads as https://a/cb) would never match them.
 */
export function redirectUris(list: readonly string[], field = 'redirect_uris'): string[] {
  const uris = [...new Set(list.map((u) => u.trim()).filter((u) => u !== ''))];
  if (uris.length > REDIRECT_URIS_MAX) throw invalid(field, `at most ${REDIRECT_URIS_MAX}`);
  for (const uri of uris) {
    checkedUrl(field, uri, REDIRECT_SCHEMES);
    if (!REDIRECT_SCHEMES.some((s) => uri.startsWith(`${s}//`))) throw invalid(field, mustStartWith(REDIRECT_SCHEMES));
    // Each is a key of an index, and PostgreSQL refuses an index row over 2704 bytes.
    if (Buffer.byteLength(uri) > URL_MAX) throw invalid(field, `at most ${URL_MAX} bytes in UTF-8`);
    // Not the parsed hash: a lone '#' leaves it empty, and RFC 6749 (3.1.2) allows no fragment at all.
    if (uri.includes('#')) throw invalid(field, 'must not contain a fragment (#)');
  }
  return uris;
}
