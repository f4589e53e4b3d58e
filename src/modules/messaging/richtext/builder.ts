// Builds the platform's rich text (markup.ts) out of converted HTML or Markdown: runs of styled
// text, images and line breaks, rendered as content text whose uitag objects markup.ts parses back.
import { isHttpsUrl, literalSegment, renderMarkup, type Segment } from '../markup.js';

export interface Style {
  bold: boolean;
  italic: boolean;
  color: string | null;
  /** Inside a link: its https address. */
  href: string | null;
}

export const PLAIN: Style = { bold: false, italic: false, color: null, href: null };

/** The one failure a conversion reports; the caller turns it into a parameter error on `text`. */
export class ConversionError extends Error {}
/** The conversion left no text: Telegram's surface words it as an empty text. */
export class NothingLeftError extends ConversionError {}

type TextPart = { kind: 'text'; text: string; style: Style };
type Part = TextPart | { kind: 'img'; src: string; href: string | null };

const sameStyle = (a: Style, b: Style): boolean =>
  a.bold === b.bold && a.italic === b.italic && a.color === b.color && a.href === b.href;

const shown = (v: string): string => JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);

/** An address for a link or an image, trimmed as browsers do; anything but https is refused. */
export function httpsAddress(what: 'links' | 'images', raw: string): string {
  const address = raw.trim();
  if (!isHttpsUrl(address)) throw new ConversionError(`${what} must be https:// URLs (got ${shown(address)})`);
  return address;
}

function segmentOf(part: Part): Segment {
  if (part.kind === 'img') {
    return {
      kind: 'img',
      src: part.src,
      position: 'foot',
      rawPosition: 'foot',
      href: part.href,
      height: null,
      width: null,
    };
  }
  const { text, style } = part;
  if (style.href !== null) return { kind: 'a', text, href: style.href };
  if (style.bold || style.italic || style.color !== null) {
    return { kind: 'font', text, bold: style.bold, italic: style.italic, color: style.color };
  }
  return literalSegment(text);
}

export class RichTextBuilder {
  private readonly parts: Part[] = [];
  private lastText: TextPart | undefined;
  private pendingBreaks = 0;

  /** Text in a style; adjacent runs of one style merge. */
  text(text: string, given: Style): void {
    if (text === '') return;
    // A link tag has no styling of its own: styles inside a link would only split it.
    const style = given.href === null ? given : { ...PLAIN, href: given.href };
    this.flushBreaks();
    const last = this.parts.at(-1);
    if (last?.kind === 'text' && sameStyle(last.style, style)) {
      last.text += text;
    } else {
      this.lastText = { kind: 'text', text, style };
      this.parts.push(this.lastText);
    }
  }

  /** Images are laid out at the foot of the message, in the order given. */
  image(src: string, style: Style): void {
    this.parts.push({ kind: 'img', src: httpsAddress('images', src), href: style.href });
  }

  /** A block boundary: at least `lines` line breaks before the next text, none at the start or end. */
  blockBreak(lines = 1): void {
    this.pendingBreaks = Math.max(this.pendingBreaks, lines);
  }

  private flushBreaks(): void {
    const wanted = this.pendingBreaks;
    this.pendingBreaks = 0;
    const last = this.lastText?.text;
    if (last === undefined || wanted === 0) return;
    let trailing = 0;
    while (trailing < wanted && last[last.length - 1 - trailing] === '\n') trailing++;
    if (trailing < wanted) this.text('\n'.repeat(wanted - trailing), PLAIN);
  }

  /** The content text; a conversion that leaves nothing to show is refused. */
  render(): string {
    const content = renderMarkup({ segments: this.parts.map(segmentOf) });
    if (content === '') throw new NothingLeftError('nothing to show after conversion');
    return content;
  }
}
