// Walks of request input. Iterative, because a client chooses the nesting: a recursive walk of a
// body nested a few thousand levels deep (8 KB of brackets) overflows the stack.

/** More levels of arrays and objects than any request the contract describes (reply_markup needs 5). */
export const MAX_DEPTH = 32;

/**
 * Whether `test` holds for some value or key inside `v` (an object's keys count as strings one level
 * down; array indexes are not keys). Hot (every event of a batch): parallel stacks of nodes and
 * depths, no allocation per node.
 */
function someNode(v: unknown, test: (node: unknown, depth: number) => boolean): boolean {
  const nodes: unknown[] = [v];
  const depths: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const depth = depths.pop() ?? 0;
    if (test(node, depth)) return true;
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (const child of node) {
        nodes.push(child);
        depths.push(depth + 1);
      }
      continue;
    }
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (test(key, depth + 1)) return true;
      nodes.push(record[key]);
      depths.push(depth + 1);
    }
  }
  return false;
}

/** PostgreSQL text cannot hold U+0000; input carrying it is refused alike on both stores. */
export const hasNul = (v: unknown): boolean =>
  someNode(v, (node) => typeof node === 'string' && node.includes('\u0000'));

/**
 * Why text cannot be stored as it was sent: U+0000, which PostgreSQL text cannot hold, or a lone
 * surrogate (a JSON escape such as \ud800 without its pair), which has no UTF-8 form: stored, it
 * would come back as U+FFFD. Raw bytes and percent-escapes cannot carry one (they must be UTF-8).
 */
export type TextFault = 'nul' | 'surrogate';

/** What each fault is, as an answer names it. */
export const FAULTY: Readonly<Record<TextFault, string>> = { nul: 'U+0000', surrogate: 'a lone surrogate' };

/** The detail of each fault in an answer. */
export const TEXT_FAULTS: Readonly<Record<TextFault, string>> = {
  nul: `text must not contain ${FAULTY.nul}`,
  surrogate: `text must not contain ${FAULTY.surrogate}`,
};

// isWellFormed is answered at once for a one-byte string, which most text is.
export const faultOf = (text: string): TextFault | undefined =>
  text.includes('\u0000') ? 'nul' : text.isWellFormed() ? undefined : 'surrogate';

/** The fault of the first string or key in `v` that has one (a walk, as in hasNul). */
export function textFault(v: unknown): TextFault | undefined {
  let found: TextFault | undefined;
  someNode(v, (node) => {
    if (typeof node === 'string') found = faultOf(node);
    return found !== undefined;
  });
  return found;
}

/**
 * What a request body breaks, in one walk: nesting deeper than `max` levels (which wins, as in
 * tooDeep), else, when `text` is asked, the first text fault of a string or key (as in textFault).
 */
export function inputFault(v: unknown, text: boolean, max = MAX_DEPTH): 'deep' | TextFault | undefined {
  let found: TextFault | undefined;
  const deep = someNode(v, (node, depth) => {
    if (typeof node === 'string') {
      if (text && found === undefined) found = faultOf(node);
      return false;
    }
    return depth >= max && typeof node === 'object' && node !== null;
  });
  return deep ? 'deep' : found;
}

/** Whether arrays and objects nest deeper than `max` levels; stops at that depth, whatever lies below. */
export const tooDeep = (v: unknown, max = MAX_DEPTH): boolean =>
  someNode(v, (node, depth) => depth >= max && typeof node === 'object' && node !== null);
