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
 * What a request body breaks, in one walk: nesting deeper than `max` levels (which wins, as in
 * tooDeep), else, when `nul` is asked, U+0000 in some string or key (as in hasNul).
 */
export function inputFault(v: unknown, nul: boolean, max = MAX_DEPTH): 'deep' | 'nul' | undefined {
  const seen = { nul: false };
  const deep = someNode(v, (node, depth) => {
    if (typeof node === 'string') {
      if (nul && !seen.nul && node.includes('\u0000')) seen.nul = true;
      return false;
    }
    return depth >= max && typeof node === 'object' && node !== null;
  });
  return deep ? 'deep' : seen.nul ? 'nul' : undefined;
}

/** Whether arrays and objects nest deeper than `max` levels; stops at that depth, whatever lies below. */
export const tooDeep = (v: unknown, max = MAX_DEPTH): boolean =>
  someNode(v, (node, depth) => depth >= max && typeof node === 'object' && node !== null);
