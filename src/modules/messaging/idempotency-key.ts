// decisions.md section 3's Idempotency-Key header, read alike by every route that sends.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, Errors } from '../../errors.js';

/** Longer keys would be index rows PostgreSQL refuses (a 500, with the message not sent). */
const MAX_KEY = 255;
/** A key replays its first send for this long; afterwards it performs again and its row may go. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

/** The native send routes' header schema (their OpenAPI entry says the same as the check below). */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: MAX_KEY })),
});

/**
 * The request's key, if it sent one. An empty key is refused, not taken as a key: it would make
 * every later send with an empty header a replay of the first.
 */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const key = request.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY) {
    throw new AppError(Errors.paramError, `Idempotency-Key: must be 1 to ${MAX_KEY} characters`);
  }
  return key;
}
