// MarkdownV2's own delimiters for markdown-it: `~strike~` (one tilde) and `||spoiler||`. The platform
// has neither style, so a matched pair only drops its markers (decisions.md section 7); an escaped
// marker (`\~`, `\|`), one in a code span and one left unmatched stay text. Built like markdown-it's
// `~~` strikethrough rule: markers are pushed as delimiters, paired by its balance_pairs rule.
import type { Delimiter, MarkdownIt, StateInline } from 'markdown-it';

const TILDE = 0x7e;
const PIPE = 0x7c;

// markdown-it's text rule swallows a run up to the characters its rules start at, and `|` is not
// one of them. Stopping at every ASCII punctuation character instead is the same parse (every
// enabled rule starts at one, the rest falls through to plain text) and lets `||` be seen.
const PLAIN_RUN = /[^\n!-/:-@[-`{-~]+/y;

function text(state: StateInline, silent: boolean): boolean {
  PLAIN_RUN.lastIndex = state.pos;
  const run = PLAIN_RUN.exec(state.src);
  const end = Math.min(state.pos + (run?.[0].length ?? 0), state.posMax);
  if (end === state.pos) return false;
  if (!silent) state.pending += state.src.slice(state.pos, end);
  state.pos = end;
  return true;
}

/** `~` is a delimiter of its own; `|` only in pairs (an odd one out is text, as in strikethrough). */
function tokenize(state: StateInline, silent: boolean): boolean {
  const marker = state.src.charCodeAt(state.pos);
  if (silent || (marker !== TILDE && marker !== PIPE)) return false;
  const scanned = state.scanDelims(state.pos, true);
  const width = marker === TILDE ? 1 : 2;
  if (scanned.length < width) return false;
  const ch = String.fromCharCode(marker);
  if (scanned.length % width !== 0) state.push('text', '', 0).content = ch;
  for (let i = 0; i + width <= scanned.length; i += width) {
    state.push('text', '', 0).content = ch.repeat(width);
    state.delimiters.push({
      marker,
      length: 0, // no rule-of-three arithmetic in balance_pairs, as for strikethrough
      token: state.tokens.length - 1,
      end: -1,
      open: scanned.can_open,
      close: scanned.can_close,
    });
  }
  state.pos += scanned.length;
  return true;
}

/** A matched pair becomes open and close tokens, which the converter reads as "no style". */
function pair(state: StateInline, delimiters: readonly Delimiter[]): void {
  for (const opener of delimiters) {
    if ((opener.marker !== TILDE && opener.marker !== PIPE) || opener.end === -1) continue;
    const closer = delimiters[opener.end];
    const open = state.tokens[opener.token];
    const close = closer === undefined ? undefined : state.tokens[closer.token];
    if (open === undefined || close === undefined) continue;
    const name = opener.marker === TILDE ? 's' : 'spoiler';
    for (const [token, nesting] of [
      [open, 1],
      [close, -1],
    ] as const) {
      token.markup = token.content;
      token.content = '';
      token.type = `${name}_${nesting === 1 ? 'open' : 'close'}`;
      token.tag = name;
      token.nesting = nesting;
    }
  }
}

function postProcess(state: StateInline): void {
  pair(state, state.delimiters);
  // Link texts keep their delimiters apart, one list each.
  for (const meta of state.tokens_meta) if (meta?.delimiters) pair(state, meta.delimiters);
}

/** Adds MarkdownV2's `~strike~` and `||spoiler||` to a markdown-it instance. */
export function markdownV2Delimiters(md: MarkdownIt): void {
  md.inline.ruler.at('text', text);
  md.inline.ruler.before('emphasis', 'markdown_v2_delimiters', tokenize);
  md.inline.ruler2.before('emphasis', 'markdown_v2_delimiters', postProcess);
}
