// The one shell of every server-rendered page (the authorize page, the developer site, the console,
// the playground, the API reference): escaping by construction, one hashed stylesheet per page
// family, the document around a page's body and the strict headers every page answers with.
import { hash } from 'node:crypto';
import type { Lang } from './lang.js';

/** Markup that is already safe to emit. */
export class Html {
  constructor(readonly text: string) {}
}

export type Part = Html | string | number | false | undefined | null | readonly Part[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

function render(part: Part): string {
  if (part instanceof Html) return part.text;
  if (part === false || part === undefined || part === null) return '';
  if (typeof part === 'number') return String(part);
  if (typeof part === 'string') return escapeHtml(part);
  return part.map(render).join('');
}

/** Template tag: literal text is markup, interpolations are escaped (false, null and undefined omit). */
export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0] ?? '';
  parts.forEach((part, i) => {
    out += render(part) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

/** A data table with column headings; `rows` are the cells of each row. */
export const table = (headings: readonly string[], rows: readonly (readonly Part[])[]): Html =>
  html`<table>
    <thead>
      <tr>
        ${headings.map((h) => html`<th scope="col">${h}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (cells) =>
          html`<tr>
            ${cells.map((c) => html`<td>${c}</td>`)}
          </tr>`,
      )}
    </tbody>
  </table>`;

/** `URL.parse` needs Node 22; the project supports 20. */
export function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** One inline stylesheet, allowed by the CSP through its hash: no other inline style or script runs. */
export class Stylesheet {
  readonly source: string;
  // Built here, not in a template, so formatting a template cannot change the hashed text.
  private readonly element: Html;

  /**
   * `images`: pages that show images from https addresses (avatars); `languages`: pages whose
   * language follows Accept-Language, so caches keep one copy per language.
   */
  constructor(
    css: string,
    private readonly options: { images?: boolean; languages?: boolean } = {},
  ) {
    this.source = `'sha256-${hash('sha256', css, 'base64')}'`;
    this.element = new Html(`<style>${css}</style>`);
  }

  /**
   * Headers of every page answer; `formActions` are the origins its forms may lead to besides itself;
   * `script` (a hash source) is the one script the page may run, and it may fetch from its origin.
   */
  headers(formActions: readonly string[] = [], script?: string): Record<string, string> {
    return {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': [
        "default-src 'none'",
        `style-src ${this.source}`,
        ...(this.options.images === true ? ['img-src https:'] : []),
        ...(script !== undefined ? [`script-src ${script}`, "connect-src 'self'"] : []),
        `form-action ${["'self'", ...formActions].join(' ')}`,
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ].join('; '),
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...(this.options.languages === true ? { vary: 'Accept-Language' } : {}),
    };
  }

  document(title: string, body: Html, lang: Lang = 'en'): string {
    return html`<!doctype html>
      <html lang="${lang}">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="color-scheme" content="light dark" />
          <meta name="referrer" content="no-referrer" />
          <title>${title} · Open Platform</title>
          ${this.element}
        </head>
        <body>
          ${body}
        </body>
      </html> `.text;
  }
}

/** The first character of a name, as a monogram in place of a logo. */
export const initial = (name: string): string => (Array.from(name.trim())[0] ?? '?').toUpperCase();
