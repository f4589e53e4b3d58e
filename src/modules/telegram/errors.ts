// Errors in Telegram's envelope and wording (telegram-api.md "Envelope"): the HTTP status is the
// error_code. The one registry (src/errors.ts) renders them, as it renders every surface's.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, Errors, renderError } from '../../errors.js';
import { closeIfBodyUnread, toAppError } from '../../http/errors.js';

export function telegramErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const appError = toAppError(error, request.url);
  closeIfBodyUnread(request, reply);
  if (appError.def.status >= 500) request.log.error({ err: error, reqId: request.id }, 'request failed');
  const { status, body, headers } = renderError('telegram', appError);
  return reply.code(status).headers(headers).send(body);
}

export const badRequest = (reason: string): AppError => new AppError(Errors.paramError, reason);
