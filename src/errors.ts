// The one error registry. Each error has a stable id, an HTTP status and its exact texts; the
// mapper (renderError) turns it into the envelope of the surface the request came through.

export interface ErrorDef {
  /** Stable snake_case id; the `error` field on the operator surface. */
  readonly id: string;
  readonly status: number;
  /** The `error` field of the /openapi/ envelope. */
  readonly error: string;
  readonly message: string;
  /** Login and token errors answer `{code, data: null, message, success: false}` with this code. */
  readonly loginCode?: number;
  /** Transfer results answer `{code, msg, source}` with this code (the `source` comes as an extra field). */
  readonly paymentCode?: string;
}

const def = (id: string, status: number, error: string, message: string): ErrorDef => ({ id, status, error, message });
/** A login-flow error (seed-api.md error codes): HTTP 200 envelope unless `status` says otherwise. */
const login = (id: string, loginCode: number, message: string, status = 200): ErrorDef => ({
  id,
  status,
  error: status === 200 ? 'OK' : 'Bad Request',
  message,
  loginCode,
});
/** A payment error (seed-api.md error codes): a transfer result with this code, HTTP 200. */
const payment = (id: string, paymentCode: string, message: string): ErrorDef & { readonly paymentCode: string } => ({
  id,
  status: 200,
  error: 'OK',
  message,
  paymentCode,
});

export const Errors = {
  // /openapi/ authentication and parameters (decisions.md section 1)
  apiKeyUnavailable: def('api_key_unavailable', 400, 'Bad Request', 'You X-API-KEY is not available'),
  paramError: def('param_error', 401, 'Bad Request', 'Param error'),
  signatureMismatch: def('signature_mismatch', 401, 'Unauthorized', 'signature mismatch'),
  timestampOutOfRange: def('timestamp_out_of_range', 401, 'Unauthorized', 'timestamp out of range'),
  nonceUsed: def('nonce_already_used', 401, 'Unauthorized', 'nonce already used'),
  signatureRequired: def('signature_required', 401, 'Unauthorized', 'signature required'),
  routeNotFound: def('not_found', 404, 'Not Found', 'no such endpoint'),

  // Messaging (decisions.md section 3)
  imageLevel: def('image_level', 403, 'Forbidden', 'image sending requires level 2'),
  notGroupMember: def('not_a_member', 403, 'Forbidden', 'the sender is not a member of this group'),
  privateNotAllowed: def(
    'private_not_allowed',
    403,
    'Forbidden',
    "the bot's private-message setting does not allow this user",
  ),
  permissionRequired: def('permission_required', 403, 'Forbidden', 'the bot lacks the permission this method needs'),
  notABot: def('not_a_bot', 403, 'Forbidden', 'this method needs the App Key of a bot'),
  messageNotFound: def('message_not_found', 404, 'Not Found', 'message not found'),
  notOwnMessage: def('not_own_message', 403, 'Forbidden', 'a bot can edit only its own messages'),
  messageNotModified: def('message_not_modified', 400, 'Bad Request', 'message is not modified'),

  // Bot update delivery (decisions.md section 2)
  pollTerminated: def('poll_terminated', 409, 'Conflict', 'Conflict: terminated by other getUpdates request'),
  /** A long poll ended because the bot's webhook was set (on either surface), in Telegram's words. */
  pollEndedByWebhook: def('poll_ended_by_webhook', 409, 'Conflict', 'Conflict: terminated by setWebhook request'),
  webhookActive: def(
    'webhook_active',
    409,
    'Conflict',
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
  ),
  unknownCallbackQuery: def(
    'unknown_callback_query',
    400,
    'Bad Request',
    'Bad Request: query is too old or query ID is invalid',
  ),
  payloadTooLarge: def('payload_too_large', 413, 'Payload Too Large', 'request body too large'),
  headersTooLarge: def('headers_too_large', 431, 'Request Header Fields Too Large', 'request headers too large'),
  requestTimeout: def('request_timeout', 408, 'Request Timeout', 'the request did not arrive in time'),
  rateLimited: def('rate_limited', 429, 'Too Many Requests', 'rate limit exceeded'),

  // Operator surface (operator-api.md)
  unauthorized: def('unauthorized', 401, 'Unauthorized', 'missing or wrong bearer token'),
  tooManyAttempts: def('too_many_attempts', 429, 'Too Many Requests', 'too many wrong operator tokens'),
  invalidRequest: def('invalid_request', 400, 'Bad Request', 'invalid request'),
  invalidEvent: def('invalid_event', 400, 'Bad Request', 'invalid event'),
  unknownUser: def('unknown_user', 404, 'Not Found', 'unknown user'),
  unknownBot: def('unknown_bot', 404, 'Not Found', 'unknown bot'),
  unknownGroup: def('unknown_group', 404, 'Not Found', 'unknown group'),
  unknownMoment: def('unknown_moment', 404, 'Not Found', 'unknown moment'),
  unknownApplication: def('unknown_application', 404, 'Not Found', 'unknown permission application'),
  botLimitReached: def('bot_limit_reached', 409, 'Conflict', 'an account may own at most 5 bots'),
  appLimitReached: def('app_limit_reached', 409, 'Conflict', 'an account may own at most 20 applications'),
  applicationDecided: def('application_decided', 409, 'Conflict', 'the application was already decided'),
  applicationPending: def('application_pending', 409, 'Conflict', 'an application for this permission is pending'),
  permissionHeld: def('permission_held', 409, 'Conflict', 'the bot already holds this permission'),

  // Developer site and assistant (seed-api.md Bot and its credentials)
  unknownApp: def('unknown_app', 404, 'Not Found', 'unknown app'),
  botNotDeletable: def('bot_not_deletable', 409, 'Conflict', 'created bots cannot be deleted'),
  unknownDelivery: def('unknown_delivery', 404, 'Not Found', 'unknown webhook delivery'),
  deliveryNotFailed: def('delivery_not_failed', 409, 'Conflict', 'only a failed delivery can be redelivered'),
  deliveryInFlight: def(
    'delivery_in_flight',
    409,
    'Conflict',
    'the update is being delivered right now; redeliver it if this attempt fails',
  ),
  webhookNotSet: def('webhook_not_set', 409, 'Conflict', 'the bot receives by long polling; set a Webhook URL first'),

  // Login (seed-api.md Authorization login; decisions.md section 5)
  badAppCredentials: login('bad_app_credentials', 401, 'Bad Request', 401),
  loginRequired: login('login_required', -2001, 'user login validity problem; log in again'),
  loginParamInvalid: login('login_param_invalid', -2004, 'parameter invalid'),
  codeExpired: login('code_expired', -2010, 'code expired'),
  codeInvalid: login('code_invalid', -2011, 'code invalid'),
  refreshFailed: login('refresh_failed', -2012, 'refreshing the access token failed'),
  accessTokenExpired: login('access_token_expired', -2013, 'access token expired'),
  accessTokenInvalid: login('access_token_invalid', -2015, 'access token check failed'),
  /**
   * A token endpoint over its budget: the login envelope these endpoints fail in, with code and HTTP
   * status 429 (decisions.md section 1) and the rate_limited wording; Retry-After beside it.
   */
  loginRateLimited: { ...login('login_rate_limited', 429, 'rate limit exceeded', 429), error: 'Too Many Requests' },

  // Authorized payment (seed-api.md Authorization and payment error codes; decisions.md section 5)
  paymentAppInvalid: payment('payment_app_invalid', '-2004', 'app_id or app_secret invalid'),
  paymentTokenMismatch: payment('payment_token_mismatch', '-2006', 'serial_id and one-time token do not match'),
  paymentTokenExpired: payment('payment_token_expired', '-2006', 'one-time token expired'),
  paymentOrderMismatch: payment(
    'payment_order_mismatch',
    '-2006',
    'the order is not the payment the app expected (amount, pay_type, payer or receiver)',
  ),
  transferRepeated: payment('transfer_repeated', '-2016', 'repeated transfer request'),
  balanceInsufficient: payment('balance_insufficient', '-7048', 'balance insufficient; transfer failed'),

  /** The database cannot serve now (unreachable, full disk, read-only, locked): a server fault to retry. */
  storeUnavailable: def('store_unavailable', 503, 'Service Unavailable', 'the database is unavailable; retry later'),
  internal: def('internal_error', 500, 'Internal Server Error', 'internal error'),
} as const;

export class AppError extends Error {
  constructor(
    readonly def: ErrorDef,
    readonly detail?: string,
    /** Extra envelope fields (e.g. `index` of a bad event). */
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail === undefined ? def.message : `${def.message}: ${detail}`);
    this.name = 'AppError';
  }
}

/** What was thrown, as an Error: Fastify sends only Errors to the error handler. */
export const asError = (thrown: unknown): Error => (thrown instanceof Error ? thrown : new Error(String(thrown)));

export const fail = (d: ErrorDef, detail?: string, extra?: Record<string, unknown>): never => {
  throw new AppError(d, detail, extra);
};

export type Surface = 'openapi' | 'bot' | 'internal' | 'telegram';

/**
 * The path of a request target without its query. HTTP/1.1 servers must accept the absolute form
 * (`GET http://host/openapi/user/info?...`, RFC 9112 section 3.2.2), which Node leaves in `url`.
 */
export const pathOf = (target: string): string =>
  target.replace(/^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i, '').split('?', 1)[0] ?? '';

/** Which envelope a request target answers errors in. */
export function surfaceOf(target: string): Surface {
  const path = pathOf(target);
  if (path.startsWith('/telegram/')) return 'telegram';
  if (path.startsWith('/openapi/bot/') || path.startsWith('/openapi/answerCallbackQuery')) return 'bot';
  if (path.startsWith('/openapi/')) return 'openapi';
  return 'internal';
}

export interface Rendered {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

export function renderError(surface: Surface, e: AppError): Rendered {
  const { def: d, detail, extra, headers } = e;
  if (d.loginCode !== undefined && surface !== 'bot' && surface !== 'telegram') {
    return { status: d.status, headers, body: { code: d.loginCode, data: null, message: d.message, success: false } };
  }
  if (d.paymentCode !== undefined && surface !== 'bot' && surface !== 'telegram') {
    return { status: d.status, headers, body: { code: d.paymentCode, msg: d.message, ...extra } };
  }
  switch (surface) {
    case 'openapi':
      return {
        status: d.status,
        headers,
        body: {
          error: d.error,
          code: d.status,
          message: d.message,
          ...(detail !== undefined ? { detail } : {}),
          ...extra,
        },
      };
    case 'bot':
      // Bot client libraries read error details only from 200 answers (decisions.md section 2).
      return {
        status: d.status >= 500 ? d.status : 200,
        headers,
        body: {
          ok: false,
          result: null,
          // Bot client libraries expect 400 "Bad Request: ..." for bad parameters.
          error_code: d === Errors.paramError ? 400 : d.status,
          message: d === Errors.paramError ? `Bad Request: ${detail ?? d.message}` : (detail ?? d.message),
          success: false,
          ...(headers['retry-after'] !== undefined
            ? { parameters: { retry_after: Number(headers['retry-after']) } }
            : {}),
          ...extra,
        },
      };
    case 'internal':
      return { status: d.status, headers, body: { error: d.id, message: detail ?? d.message, ...extra } };
    case 'telegram':
      return telegramRendering(e);
  }
}

export const TELEGRAM_CHAT_NOT_FOUND = 'chat not found';

/** Registry entries whose Telegram wording differs from the platform's (telegram-api.md "Envelope"). */
const TELEGRAM_WORDING = new Map<ErrorDef, { code: number; description: string }>([
  [Errors.apiKeyUnavailable, { code: 401, description: 'Unauthorized' }],
  [Errors.notABot, { code: 401, description: 'Unauthorized' }],
  [Errors.routeNotFound, { code: 404, description: 'Not Found' }],
  [Errors.unknownUser, { code: 400, description: `Bad Request: ${TELEGRAM_CHAT_NOT_FOUND}` }],
  [Errors.unknownGroup, { code: 400, description: `Bad Request: ${TELEGRAM_CHAT_NOT_FOUND}` }],
  [Errors.notGroupMember, { code: 403, description: 'Forbidden: bot is not a member of the group chat' }],
  [Errors.privateNotAllowed, { code: 403, description: "Forbidden: bot can't initiate conversation with a user" }],
  [Errors.imageLevel, { code: 403, description: 'Forbidden: image sending requires level 2' }],
  [Errors.messageNotFound, { code: 400, description: 'Bad Request: message to edit not found' }],
  [Errors.notOwnMessage, { code: 400, description: "Bad Request: message can't be edited" }],
  [
    Errors.messageNotModified,
    {
      code: 400,
      description:
        'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
    },
  ],
  // Telegram gives one text for an unknown query and one already answered.
  [
    Errors.unknownCallbackQuery,
    {
      code: 400,
      description: 'Bad Request: query is too old and response timeout expired or query ID is invalid',
    },
  ],
  [
    Errors.pollTerminated,
    {
      code: 409,
      description: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
    },
  ],
  [Errors.payloadTooLarge, { code: 413, description: 'Request Entity Too Large' }],
]);

/** Telegram's envelope: the HTTP status is the error_code; 429 carries parameters.retry_after. */
function telegramRendering(e: AppError): Rendered {
  const { def: d, detail, headers } = e;
  if (d === Errors.rateLimited) {
    const retryAfter = Number(headers['retry-after'] ?? '1');
    const description = `Too Many Requests: retry after ${String(retryAfter)}`;
    return {
      status: 429,
      headers,
      body: { ok: false, error_code: 429, description, parameters: { retry_after: retryAfter } },
    };
  }
  const known = TELEGRAM_WORDING.get(d);
  const mapped =
    known ??
    (d === Errors.paramError || d === Errors.invalidRequest
      ? { code: 400, description: `Bad Request: ${detail ?? d.message}` }
      : { code: d.status, description: d.status >= 500 ? d.error : `${d.error}: ${detail ?? d.message}` });
  // The platform's texts that already read like Telegram's keep their own wording.
  const description =
    d.message.startsWith(`${d.error}: `) && known === undefined ? (detail ?? d.message) : mapped.description;
  return { status: mapped.code, headers, body: { ok: false, error_code: mapped.code, description } };
}
