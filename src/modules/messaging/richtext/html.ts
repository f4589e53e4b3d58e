// parse_mode=HTML (decisions.md section 7): HTML becomes the platform's rich text. `a` becomes a
// link, `b`/`strong` bold, `i`/`em` italic, `font color` a colour, `img` a foot image, `br`/`p`/`div`
// line breaks; every other tag is dropped with its attributes but keeps its text, except `script`
// and `style`, dropped whole. htmlparser2's SAX parser does not recurse, so any nesting depth is fine,
// and it reports every element's end (implied ends of unclosed tags included), which keeps the style
// stack balanced.
import { Parser } from 'htmlparser2';
import { isColor } from '../markup.js';
import { httpsAddress, PLAIN, RichTextBuilder, type Style } from './builder.js';

interface Open {
  style: Style;
  /** Inside script or style: text is dropped. */
  hidden: boolean;
}

const BREAK_AROUND = new Set(['p', 'div']);
const HIDDEN = new Set(['script', 'style']);

function styleOf(name: string, attribs: Record<string, string>, outer: Style): Style {
  switch (name) {
    case 'b':
    case 'strong':
      return { ...outer, bold: true };
    case 'i':
    case 'em':
      return { ...outer, italic: true };
    case 'font': {
      const color = attribs.color?.trim();
      return color !== undefined && isColor(color) ? { ...outer, color } : outer;
    }
    case 'a': {
      const href = attribs.href;
      // An anchor without an address is plain text; any address but https is refused.
      return href === undefined || href.trim() === '' ? outer : { ...outer, href: httpsAddress('links', href) };
    }
    default:
      return outer;
  }
}

/** The rich-text content for an HTML text; throws ConversionError for a refused link or image. */
export function htmlToRichText(html: string): string {
  const out = new RichTextBuilder();
  const stack: Open[] = [];
  const top = (): Open => stack.at(-1) ?? { style: PLAIN, hidden: false };
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const outer = top();
        stack.push({ style: styleOf(name, attribs, outer.style), hidden: outer.hidden || HIDDEN.has(name) });
        if (outer.hidden) return;
        if (name === 'br') out.text('\n', outer.style);
        else if (name === 'img' && attribs.src !== undefined && attribs.src.trim() !== '') {
          out.image(attribs.src, outer.style);
        } else if (BREAK_AROUND.has(name)) out.blockBreak();
      },
      onclosetag(name) {
        stack.pop();
        if (BREAK_AROUND.has(name)) out.blockBreak();
      },
      ontext(text) {
        const { style, hidden } = top();
        if (!hidden) out.text(text, style);
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return out.render();
}
