// Recognises the errors that mean the store cannot serve right now (as opposed to a bug in a
// statement), so that a request answers 503, which clients retry, instead of 500.
import { errorCode } from '../lib/error-code.js';

/** PostgreSQL SQLSTATEs: connection exceptions (08), insufficient resources (53: disk full, too many
 * connections), the server shutting down or starting (57P01-57P03), a statement timeout (57014). */
const PG_UNAVAILABLE = /^(08...|53...|57P0[123]|57014)$/;

/** SQLite (better-sqlite3 reports extended codes, e.g. SQLITE_READONLY_DBMOVED): a full disk, a
 * file that cannot be written or opened, I/O errors, and a lock still held after busy_timeout. */
const SQLITE_UNAVAILABLE = /^SQLITE_(FULL|READONLY|BUSY|LOCKED|IOERR|CANTOPEN)(_|$)/;

/** Socket errors of the driver reaching PostgreSQL. */
const SOCKET = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** node-postgres gives these no code: a connection lost mid-query, or not made within its timeout. */
const PG_CONNECTION_LOST =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

export function storeUnavailable(e: unknown, depth = 0): boolean {
  if (!(e instanceof Error) || depth > 4) return false;
  const code = errorCode(e);
  if (code !== undefined && (PG_UNAVAILABLE.test(code) || SQLITE_UNAVAILABLE.test(code) || SOCKET.has(code))) {
    return true;
  }
  if (code === undefined && PG_CONNECTION_LOST.test(e.message)) return true;
  // Connecting to every address of a host fails as one AggregateError; wrappers keep a cause.
  if (e instanceof AggregateError && e.errors.some((inner) => storeUnavailable(inner, depth + 1))) return true;
  return storeUnavailable(e.cause, depth + 1);
}
