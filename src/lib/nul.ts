// Walks of request input. Iterative, because a client chooses the nesting: a recursive walk of a
// body nested a few thousand levels deep (8 KB of brackets) overflows the stack.

/** More levels of arrays and objects than any request the contract describes (reply_markup needs 5). */
export const MAX_DEPTH = 32;

/** Whether `test` holds for some value or key inside `v` (keys count as strings one level down). */
function someNode(v: unknown, test: (node: unknown, depth: number) => boolean): boolean {
  const pending: [unknown, number][] = [[v, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (test(node, depth)) return true;
    if (typeof node !== 'object' || node === null) continue;
    for (const [key, child] of Object.entries(node)) pending.push([key, depth + 1], [child, depth + 1]);
  }
  return false;
}

/** PostgreSQL text cannot hold U+0000; input carrying it is refused alike on both stores. */
export const hasNul = (v: unknown): boolean =>
  someNode(v, (node) => typeof node === 'string' && node.includes('\u0000'));

/** Whether arrays and objects nest deeper than `max` levels; stops at that depth, whatever lies below. */
export const tooDeep = (v: unknown, max = MAX_DEPTH): boolean =>
  someNode(v, (node, depth) => depth >= max && typeof node === 'object' && node !== null);
