// parse_mode=Markdown and MarkdownV2 (decisions.md section 7): the Markdown of bot client libraries
// becomes the platform's rich text through markdown-it. As in those libraries, `*x*` and `**x**` are
// bold and `_x_` italic; `__x__` (underline) and code are plain text; links and images as in HTML.
// Only the constructs those libraries know are parsed: headings, lists, quotes, rules, tables,
// indented code and raw HTML stay literal text, so "1. Buy milk" or "# 5" keep their characters.
// Backslash escapes (MarkdownV2's `\.`, `\!`) come out as the plain character. MarkdownV2 alone has
// `~strike~` and `||spoiler||`, kept as their text; in legacy Markdown `~` and `|` are characters.
import MarkdownIt, { type MarkdownIt as Parser, type Token } from 'markdown-it';
import { httpsAddress, PLAIN, RichTextBuilder, type Style } from './builder.js';
import { markdownV2Delimiters } from './markdown-v2.js';

export type MarkdownMode = 'Markdown' | 'MarkdownV2';

function parser(): Parser {
  const md = new MarkdownIt('commonmark', { html: false, linkify: false, typographer: false }).disable([
    'code',
    'blockquote',
    'hr',
    'list',
    'reference',
    'heading',
    'lheading',
    'html_block',
    'html_inline',
  ]);
  // Every link is kept as a link, so a `javascript:` one is refused like in HTML rather than shown as text.
  md.validateLink = () => true;
  return md;
}

const PARSERS: Record<MarkdownMode, Parser> = { Markdown: parser(), MarkdownV2: parser().use(markdownV2Delimiters) };

function opened(token: Token, outer: Style): Style {
  switch (token.type) {
    case 'em_open':
      return token.markup === '_' ? { ...outer, italic: true } : { ...outer, bold: true };
    case 'strong_open':
      return token.markup === '**' ? { ...outer, bold: true } : outer;
    case 'link_open':
      return { ...outer, href: httpsAddress('links', String(token.attrGet('href') ?? '')) };
    default:
      return outer;
  }
}

function inline(tokens: readonly Token[], out: RichTextBuilder): void {
  const styles: Style[] = [PLAIN];
  const style = (): Style => styles.at(-1) ?? PLAIN;
  for (const token of tokens) {
    if (token.type === 'text' || token.type === 'code_inline') out.text(token.content, style());
    else if (token.type === 'softbreak' || token.type === 'hardbreak') out.text('\n', style());
    else if (token.type === 'image') out.image(String(token.attrGet('src') ?? ''), style());
    else if (token.nesting === 1) styles.push(opened(token, style()));
    else if (token.nesting === -1 && styles.length > 1) styles.pop();
  }
}

/** The rich-text content for a Markdown text; throws ConversionError for a refused link or image. */
export function markdownToRichText(markdown: string, mode: MarkdownMode): string {
  const out = new RichTextBuilder();
  for (const token of PARSERS[mode].parse(markdown, {})) {
    if (token.type === 'inline') {
      inline(token.children ?? [], out);
    } else if (token.type === 'fence') {
      out.blockBreak(2);
      out.text(token.content.replace(/\n$/, ''), PLAIN);
    }
    if (token.type === 'paragraph_close' || token.type === 'fence') out.blockBreak(2);
  }
  return out.render();
}
