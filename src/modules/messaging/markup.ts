// Rich-message markup: a content string of ordinary text with tag objects ({"uitag": ...} as JSON
// text) placed inline. Parses and validates it into segments, renders segments back to content text
// and lays a message out top to bottom: head images, title, inline content, foot images.
//
// Scanning rule: at each `{` the balanced (string-aware) candidate object is taken whole, either as a
// tag or as ordinary text, and scanning resumes after it. Consuming text candidates whole (rather than
// stepping one character) is what makes renderMarkup(parse(s)) re-parse identically: a text segment
// never ends inside an open candidate that a following tag could complete.
import { FAULTY, faultOf } from '../../lib/nul.js';

export type Segment =
  | { kind: 'text'; text: string }
  | { kind: 'a'; text: string; href: string }
  | { kind: 'font'; text: string; bold: boolean; italic: boolean; color: string | null }
  | {
      kind: 'img';
      src: string;
      position: 'head' | 'foot' | 'hidden';
      rawPosition: string | null;
      href: string | null;
      height: number | `${number}%` | null;
      width: number | `${number}%` | null;
    };

/** Text segments are merged: no two adjacent text segments, no empty text segment. */
export interface Markup {
  segments: Segment[];
}

export type MarkupResult = { ok: true; markup: Markup } | { ok: false; error: string };

export interface ImageBlock {
  src: string;
  href: string | null;
  height: number | `${number}%`;
  width: number | `${number}%` | null;
}

export interface Layout {
  head: ImageBlock[];
  title: string | null;
  /** text, a and font segments only, text merged. */
  content: Segment[];
  foot: ImageBlock[];
}

type Dimension = number | `${number}%`;
type Fields = Record<string, unknown>;

const MAX_TEXT = 5000;
const DEFAULT_HEIGHT = { head: 115, foot: 230 } as const;
const FIELDS = {
  a: new Set(['uitag', 'text', 'href']),
  font: new Set(['uitag', 'text', 'bold', 'italic', 'color']),
  img: new Set(['uitag', 'src', 'position', 'href', 'height', 'width']),
};
const HTTPS = /^https:\/\//i;
const COLOR_RULE = 'color must be RRGGBB or RGB in hex, with or without #';
// seed-api.md has color as an "RGB hex string": the leading # is usual, not required.
const COLOR = /^#?(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
// Number grammar without Infinity/hex, so "100px" or "auto" count as non-numeric. Exponents are
// accepted because `${n}%` renders tiny percentages as e.g. "1e-7%", which must re-parse.
const NUMERIC = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;
const PERCENT = /^(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?%$/i;

/** A violation inside one tag; caught by parseMarkup and turned into its error result. */
class TagError extends Error {}

/**
 * `checkText`: for content a client sends, refuse a tag string that spells U+0000 or a lone
 * surrogate (a JSON escape can carry what the content's own text could not). Content already
 * stored is read as it was, so that a message stored before that check still shows.
 */
export function parseMarkup(content: string, { checkText = false }: { checkText?: boolean } = {}): MarkupResult {
  const segments: Segment[] = [];
  let tags = 0;
  let i = 0;
  try {
    while (i < content.length) {
      const open = content.indexOf('{', i);
      if (open < 0) {
        append(segments, { kind: 'text', text: content.slice(i) });
        break;
      }
      append(segments, { kind: 'text', text: content.slice(i, open) });
      const close = closingBrace(content, open);
      const end = close < 0 ? content.length : close + 1;
      const candidate = content.slice(open, end);
      const parsed = close < 0 ? undefined : parseJson(candidate);
      if (parsed !== undefined && isRecord(parsed.value) && Object.hasOwn(parsed.value, 'uitag')) {
        tags++;
        segments.push(tag(parsed.value, tags, checkText));
      } else if (parsed === undefined && candidate.includes('"uitag"')) {
        return { ok: false, error: `tag ${tags + 1}: malformed JSON` };
      } else {
        append(segments, { kind: 'text', text: candidate });
      }
      i = end;
    }
  } catch (e) {
    if (e instanceof TagError) return { ok: false, error: e.message };
    throw e;
  }
  return { ok: true, markup: { segments } };
}

/** A link or image address the markup accepts: https:// and a valid URL. */
export const isHttpsUrl = (value: string): boolean => HTTPS.test(value) && URL.canParse(value);

/** A colour the font tag accepts: RGB or RRGGBB in hex, with or without a leading #. */
export const isColor = (value: string): boolean => COLOR.test(value);

/**
 * Plain text as a segment that renders back as that text: text with a `{` could be read back as
 * (part of) a tag object, so it travels inside a font tag without styling, whose JSON string keeps
 * it literal.
 */
export const literalSegment = (text: string): Segment =>
  text.includes('{') ? { kind: 'font', text, bold: false, italic: false, color: null } : { kind: 'text', text };

export function renderMarkup(markup: Markup): string {
  return markup.segments.map(render).join('');
}

export function hasImage(markup: Markup): boolean {
  return markup.segments.some((s) => s.kind === 'img' && s.src !== '');
}

export function linkHrefs(markup: Markup): string[] {
  return markup.segments.flatMap((s) => {
    if (s.kind === 'a') return [s.href];
    return s.kind === 'img' && s.href !== null ? [s.href] : [];
  });
}

export function layout(title: string | null, markup: Markup): Layout {
  const head: ImageBlock[] = [];
  const content: Segment[] = [];
  const foot: ImageBlock[] = [];
  for (const s of markup.segments) {
    if (s.kind !== 'img') {
      append(content, s);
    } else if (s.position !== 'hidden') {
      const block = { src: s.src, href: s.href, height: s.height ?? DEFAULT_HEIGHT[s.position], width: s.width };
      (s.position === 'head' ? head : foot).push(block);
    }
  }
  return { head, title, content, foot };
}

/** Pushes a segment, merging text into a preceding text segment and dropping empty text. */
function append(segments: Segment[], s: Segment): void {
  if (s.kind !== 'text') {
    segments.push(s);
    return;
  }
  if (s.text === '') return;
  const last = segments.at(-1);
  if (last?.kind === 'text') last.text += s.text;
  else segments.push({ kind: 'text', text: s.text });
}

/** Index of the `}` closing the `{` at `start` (skipping braces inside JSON strings), or -1. */
function closingBrace(s: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '{') {
      depth++;
    } else if (c === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

function isRecord(v: unknown): v is Fields {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function tag(obj: Fields, index: number, checkText: boolean): Segment {
  const uitag = obj.uitag;
  if (uitag !== 'a' && uitag !== 'font' && uitag !== 'img') {
    throw new TagError(`tag ${index}: unknown uitag ${show(uitag)}`);
  }
  const where = `tag ${index} (${uitag})`;
  for (const key of Object.keys(obj)) {
    if (!FIELDS[uitag].has(key)) throw new TagError(`${where}: unknown field ${show(key)}`);
  }
  // Own properties only, so a key like "constructor" never reads Object.prototype.
  const field = (name: string): unknown => (Object.hasOwn(obj, name) ? obj[name] : undefined);
  const fail = (detail: string): never => {
    throw new TagError(`${where}: ${detail}`);
  };
  const str = (name: string, required: boolean): string | undefined => {
    const v = field(name);
    if (v === undefined) return required ? fail(`${name} is required`) : undefined;
    if (typeof v !== 'string') return fail(`${name} must be a string`);
    const fault = checkText ? faultOf(v) : undefined;
    return fault === undefined ? v : fail(`${name} must not contain ${FAULTY[fault]}`);
  };
  const text = (): string => {
    const t = str('text', true) ?? '';
    return t.length > MAX_TEXT ? fail(`text is longer than ${MAX_TEXT} characters`) : t;
  };
  const url = (name: string, value: string): string => {
    if (!HTTPS.test(value)) fail(`${name} must start with https://`);
    return URL.canParse(value) ? value : fail(`${name} is not a valid URL`);
  };
  const flag = (name: string): boolean => {
    const v = field(name);
    if (v === undefined || v === 'false') return false;
    return v === 'true' ? true : fail(`${name} must be "true" or "false"`);
  };
  const dimension = (name: string): Dimension | null => {
    const v = field(name);
    if (v === undefined || typeof v === 'string' || typeof v === 'number') return toDimension(v);
    return fail(`${name} must be a string or a number`);
  };

  switch (uitag) {
    case 'a': {
      const t = text();
      return { kind: 'a', text: t, href: url('href', str('href', true) ?? '') };
    }
    case 'font': {
      const t = text();
      const bold = flag('bold');
      const italic = flag('italic');
      const color = str('color', false);
      if (color !== undefined && !COLOR.test(color)) fail(COLOR_RULE);
      return { kind: 'font', text: t, bold, italic, color: color === undefined ? null : normalizeColor(color) };
    }
    case 'img': {
      const rawSrc = str('src', true) ?? '';
      const src = rawSrc === '' ? '' : url('src', rawSrc);
      const rawPosition = str('position', false) ?? null;
      const position = rawPosition === 'head' || rawPosition === 'foot' ? rawPosition : 'hidden';
      const rawHref = str('href', false) ?? '';
      const href = rawHref === '' ? null : url('href', rawHref);
      const height = dimension('height') ?? (position === 'hidden' ? null : DEFAULT_HEIGHT[position]);
      const width = dimension('width');
      return { kind: 'img', src, position, rawPosition, href, height, width };
    }
  }
}

/** A number or numeric string >= 0, or a 0-100 percentage; null (the default) for anything else. */
function toDimension(v: string | number | undefined): Dimension | null {
  if (typeof v === 'number') return nonNegative(v);
  if (v === undefined) return null;
  if (PERCENT.test(v)) {
    const p = Number(v.slice(0, -1));
    return p <= 100 ? `${p}%` : null;
  }
  return NUMERIC.test(v) ? nonNegative(Number(v)) : null;
}

function nonNegative(n: number): number | null {
  // -0 would render as "0" and re-parse as +0, so it is stored as +0. JSON's 1e999 is Infinity.
  if (n === 0) return 0;
  return Number.isFinite(n) && n > 0 ? n : null;
}

function normalizeColor(c: string): string {
  // Only reached for validated ASCII hex, so per-character replacement is safe.
  const digits = c.startsWith('#') ? c.slice(1) : c;
  const hex = digits.length === 3 ? digits.replace(/./g, '$&$&') : digits;
  return `#${hex.toUpperCase()}`;
}

/** A short, bounded rendering of a value for an error message. */
function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return String(v);
  return Array.isArray(v) ? '(an array)' : '(an object)';
}

function render(s: Segment): string {
  switch (s.kind) {
    case 'text':
      return s.text;
    case 'a':
      return JSON.stringify({ uitag: 'a', text: s.text, href: s.href });
    case 'font':
      // JSON.stringify drops undefined fields: defaults (false, no colour) are simply omitted.
      return JSON.stringify({
        uitag: 'font',
        text: s.text,
        bold: s.bold ? 'true' : undefined,
        italic: s.italic ? 'true' : undefined,
        color: s.color ?? undefined,
      });
    case 'img': {
      // A hidden image keeps its original position text (e.g. "middle"), unless that text would unhide it.
      const hiddenAs = s.rawPosition === 'head' || s.rawPosition === 'foot' ? undefined : (s.rawPosition ?? undefined);
      return JSON.stringify({
        uitag: 'img',
        src: s.src,
        position: s.position === 'hidden' ? hiddenAs : s.position,
        href: s.href ?? undefined,
        height: s.height ?? undefined,
        width: s.width ?? undefined,
      });
    }
  }
}
