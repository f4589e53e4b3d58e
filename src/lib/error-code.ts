// The `code` of a thrown error (Node's system errors, better-sqlite3, pg, Fastify), read in one
// place so every caller narrows `unknown` the same way.

/**
 * The string `code` of any object: an error thrown in a worker thread may arrive as a plain object
 * (better-sqlite3's, whose other fields are not enumerable, keeps only its code).
 */
export const codeOf = (e: unknown): string | undefined =>
  typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined;

/** The error's string `code`, or undefined when it is not an Error or has none. */
export const errorCode = (e: unknown): string | undefined => (e instanceof Error ? codeOf(e) : undefined);
