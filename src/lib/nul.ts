/** PostgreSQL text cannot hold U+0000; input carrying it is refused alike on both stores. */
export function hasNul(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('\u0000');
  if (Array.isArray(v)) return v.some(hasNul);
  if (typeof v === 'object' && v !== null) return Object.entries(v).some(([k, x]) => k.includes('\u0000') || hasNul(x));
  return false;
}
