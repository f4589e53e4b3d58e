// Rich text and Telegram's text + entities, both ways. Telegram offsets and lengths count UTF-16
// code units, which is what JavaScript string lengths count.
import { literalSegment, parseMarkup, renderMarkup, type Segment } from '../messaging/index.js';

export interface MessageEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
}

/** `/command` or `/command@username` opening a text, as Telegram marks it. */
const COMMAND = /^\/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{1,64})?/;

function commandEntity(text: string): MessageEntity[] {
  const m = COMMAND.exec(text);
  return m === null ? [] : [{ type: 'bot_command', offset: 0, length: m[0].length }];
}

/** A message's text and entities: rich markup becomes bold, italic and text_link entities. */
export function textAndEntities(content: string, rich: boolean): { text: string; entities: MessageEntity[] } {
  const parsed = rich ? parseMarkup(content) : undefined;
  if (parsed === undefined || !parsed.ok) return { text: content, entities: commandEntity(content) };
  let text = '';
  const styled: MessageEntity[] = [];
  for (const s of parsed.markup.segments) {
    if (s.kind === 'img') continue;
    const at = { offset: text.length, length: s.text.length };
    text += s.text;
    if (s.kind === 'a') styled.push({ type: 'text_link', ...at, url: s.href });
    if (s.kind === 'font' && s.bold) styled.push({ type: 'bold', ...at });
    if (s.kind === 'font' && s.italic) styled.push({ type: 'italic', ...at });
  }
  return { text, entities: [...commandEntity(text), ...styled.filter((e) => e.length > 0)] };
}

/**
 * A text with Telegram entities as rich markup (bold, italic and text_link are kept; other kinds
 * are shown as plain text). Undefined when no entity changes how the text looks.
 */
export function markupOfEntities(text: string, entities: readonly MessageEntity[]): string | undefined {
  // An entity that starts or ends inside a character of two UTF-16 units (an emoji, say) is
  // widened to cover it whole: a cut there would store the halves as lone surrogates.
  const inPair = (at: number) =>
    at > 0 && at < text.length && /[\ud800-\udbff][\udc00-\udfff]/.test(text.slice(at - 1, at + 1));
  const clamp = (at: number) => Math.max(0, Math.min(text.length, at));
  const kept: MessageEntity[] = [];
  for (const e of entities) {
    const start = clamp(e.offset);
    const end = clamp(e.offset + e.length);
    // An empty entity styles nothing; it must not cut the text either.
    if (!['bold', 'italic', 'text_link'].includes(e.type) || end <= start) continue;
    const offset = inPair(start) ? start - 1 : start;
    kept.push({ ...e, offset, length: (inPair(end) ? end + 1 : end) - offset });
  }
  if (kept.length === 0) return undefined;
  // Cut the text at every entity boundary, then style each piece by the entities covering it.
  const cuts = new Set([0, text.length]);
  for (const e of kept) {
    cuts.add(e.offset);
    cuts.add(e.offset + e.length);
  }
  const points = [...cuts].sort((a, b) => a - b);
  const segments: Segment[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const from = points[i] ?? 0;
    const to = points[i + 1] ?? 0;
    const piece = text.slice(from, to);
    const covering = kept.filter((e) => e.offset <= from && e.offset + e.length >= to);
    const link = covering.find((e) => e.type === 'text_link' && e.url !== undefined)?.url;
    const bold = covering.some((e) => e.type === 'bold');
    const italic = covering.some((e) => e.type === 'italic');
    if (link !== undefined) segments.push({ kind: 'a', text: piece, href: link });
    else if (bold || italic) segments.push({ kind: 'font', text: piece, bold, italic, color: null });
    else segments.push(literalSegment(piece));
  }
  return renderMarkup({ segments });
}
