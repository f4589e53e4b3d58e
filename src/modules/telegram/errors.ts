// Errors in Telegram's envelope and wording (telegram-api.md "Envelope"): the HTTP status is the
// error_code. Every error still comes from the one registry; this maps its entries to Telegram's texts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, Errors, type ErrorDef } from '../../errors.js';
import { toAppError } from '../../http/errors.js';

export const CHAT_NOT_FOUND = 'chat not found';

/** Registry entries whose Telegram wording differs from the platform's. */
const WORDING = new Map<ErrorDef, { code: number; description: string }>([
  [Errors.apiKeyUnavailable, { code: 401, description: 'Unauthorized' }],
  [Errors.notABot, { code: 401, description: 'Unauthorized' }],
  [Errors.routeNotFound, { code: 404, description: 'Not Found' }],
  [Errors.unknownUser, { code: 400, description: `Bad Request: ${CHAT_NOT_FOUND}` }],
  [Errors.unknownGroup, { code: 400, description: `Bad Request: ${CHAT_NOT_FOUND}` }],
  [Errors.notGroupMember, { code: 403, description: 'Forbidden: bot is not a member of the group chat' }],
  [Errors.privateNotAllowed, { code: 403, description: "Forbidden: bot can't initiate conversation with a user" }],
  [Errors.imageLevel, { code: 403, description: 'Forbidden: image sending requires level 2' }],
  [Errors.messageNotFound, { code: 400, description: 'Bad Request: message to edit not found' }],
  [Errors.notOwnMessage, { code: 400, description: "Bad Request: message can't be edited" }],
  [
    Errors.pollTerminated,
    {
      code: 409,
      description: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
    },
  ],
  [Errors.payloadTooLarge, { code: 413, description: 'Request Entity Too Large' }],
]);

const PARAMETER_ERRORS: readonly ErrorDef[] = [Errors.paramError, Errors.invalidRequest];

export interface TelegramError {
  status: number;
  body: { ok: false; error_code: number; description: string; parameters?: { retry_after: number } };
  headers: Record<string, string>;
}

export function telegramError(e: AppError): TelegramError {
  const { def: d, detail, headers } = e;
  if (d === Errors.rateLimited) {
    const retryAfter = Number(headers['retry-after'] ?? '1');
    return {
      status: 429,
      headers,
      body: {
        ok: false,
        error_code: 429,
        description: `Too Many Requests: retry after ${retryAfter}`,
        parameters: { retry_after: retryAfter },
      },
    };
  }
  const known = WORDING.get(d);
  const mapped =
    known ??
    (PARAMETER_ERRORS.includes(d)
      ? { code: 400, description: `Bad Request: ${detail ?? d.message}` }
      : { code: d.status, description: d.status >= 500 ? d.error : `${d.error}: ${detail ?? d.message}` });
  // The platform's texts that already read like Telegram's keep their own wording.
  const description =
    d.message.startsWith(`${d.error}: `) && known === undefined ? (detail ?? d.message) : mapped.description;
  return { status: mapped.code, headers, body: { ok: false, error_code: mapped.code, description } };
}

export function telegramErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const appError = toAppError(error, request.url);
  if (appError.def.status >= 500) request.log.error({ err: error, reqId: request.id }, 'request failed');
  const { status, body, headers } = telegramError(appError);
  return reply.code(status).headers(headers).send(body);
}

export const badRequest = (reason: string): AppError => new AppError(Errors.paramError, reason);
