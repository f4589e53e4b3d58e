// Maps everything thrown while answering a request to the envelope of its surface. Unknown
// errors become a generic 500 that leaks nothing (the log keeps the details).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, Errors, pathOf, renderError, surfaceOf, type ErrorDef } from '../errors.js';
import { storeUnavailable } from '../db/unavailable.js';
import { errorCode } from '../lib/error-code.js';
import { describeValidation } from './validation.js';

const isFastifyError = (e: unknown): e is FastifyError => errorCode(e) !== undefined;

const isClientFault = (e: unknown): boolean =>
  e instanceof Error && 'statusCode' in e && typeof e.statusCode === 'number' && e.statusCode < 500;

/** The registry entry for a client's malformed request on a surface. */
export const paramErrorFor = (url: string): ErrorDef =>
  surfaceOf(url) === 'internal' ? Errors.invalidRequest : Errors.paramError;

export function toAppError(error: unknown, url: string): AppError {
  if (error instanceof AppError) return error;
  // A client's own fault (Fastify's statusCode below 500: an aborted body is an ECONNRESET) is not
  // the store's, whatever socket code it carries.
  if (!isClientFault(error) && storeUnavailable(error)) return new AppError(Errors.storeUnavailable);
  if (!isFastifyError(error)) return new AppError(Errors.internal);
  if (error.validation !== undefined) {
    return new AppError(paramErrorFor(url), describeValidation(error.validationContext ?? 'request', error.validation));
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(Errors.payloadTooLarge);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError(paramErrorFor(url), 'body: malformed JSON');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(paramErrorFor(url), 'body: unsupported content type');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError(paramErrorFor(url), 'body: content length does not match');
    case 'FST_ERR_BAD_URL':
      return new AppError(paramErrorFor(url), 'url: malformed percent-escape or invalid UTF-8');
    // Fastify's message repeats the path, which may hold a secret (a Telegram bot token).
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError(paramErrorFor(url), 'url: a path segment is too long');
    default:
      return error.statusCode !== undefined && error.statusCode < 500
        ? new AppError(paramErrorFor(url), error.message)
        : new AppError(Errors.internal);
  }
}

/**
 * An answer given before the request's body was read through (a 401 from an onRequest hook, a
 * multipart body refused part-way) closes the connection: the rest of the body would otherwise be
 * read as the next request, or left unread with the connection stuck.
 */
export function closeIfBodyUnread(request: FastifyRequest, reply: FastifyReply): void {
  const { complete, headers } = request.raw;
  const body = headers['transfer-encoding'] !== undefined || (headers['content-length'] ?? '0') !== '0';
  if (body && !complete) void reply.header('connection', 'close');
}

export function errorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const appError = toAppError(error, request.url);
  closeIfBodyUnread(request, reply);
  if (appError.def.status >= 500) request.log.error({ err: error, reqId: request.id }, 'request failed');
  const surface = surfaceOf(request.url);
  request.server.metrics.errors.inc({ surface, error: appError.def.id });
  const { status, body, headers } = renderError(surface, appError);
  return reply.code(status).headers(headers).send(body);
}

/** What a request no route takes is refused with. */
export const routeNotFound = (request: FastifyRequest): AppError =>
  new AppError(Errors.routeNotFound, `${request.method} ${pathOf(request.url)}`);
