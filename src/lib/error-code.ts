// The `code` of a thrown error (Node's system errors, better-sqlite3, pg, Fastify), read in one
// place so every caller narrows `unknown` the same way.

/** The error's string `code`, or undefined when it is not an Error or has none. */
export const errorCode = (e: unknown): string | undefined =>
  e instanceof Error && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
