// Builds the HTTP application from its services. Never listens: server.ts and tests do that.
import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { AppError, Errors, pathOf } from './errors.js';
import { decodesCleanly, registerBodyParsers } from './http/body.js';
import { clientErrorHandler } from './http/client-errors.js';
import { registerDocs } from './http/docs.js';
import { limitPipelining } from './http/pipelining.js';
import { closeIfBodyUnread, errorHandler, paramErrorFor, routeNotFound } from './http/errors.js';
import { PageFamilies } from './http/pages/routes.js';
import { MAX_DEPTH, TEXT_FAULTS, hasNul, inputFault } from './lib/nul.js';
import { redactedUrl } from './http/redact.js';
import type { App } from './http/types.js';
import { serializerCompiler } from './http/serializer.js';
import { validatorCompiler } from './http/validation.js';
import { bearerMatches } from './modules/admin/index.js';
import { appRoutes } from './modules/apps/index.js';
import { assistantRoutes } from './modules/assistant/index.js';
import { permissionRoutes } from './modules/bots/index.js';
import { developerSiteRoutes } from './modules/developers/index.js';
import { eventRoutes } from './modules/events/index.js';
import { healthRoutes } from './modules/health/index.js';
import { outboxRoutes } from './modules/outbox/index.js';
import { pointRoutes } from './modules/points/index.js';
import { sessionRoutes } from './modules/sessions/index.js';
import { userRoutes } from './modules/users/index.js';
import { groupRoutes } from './modules/groups/index.js';
import { momentRoutes } from './modules/moments/index.js';
import { activityRoutes } from './modules/activities/index.js';
import { botApiRoutes } from './modules/botapi/index.js';
import { telegramRoutes } from './modules/telegram/index.js';
import { messagingRoutes } from './modules/messaging/index.js';
import { authorizePageRoutes } from './modules/consent/index.js';
import { oauthRoutes } from './modules/oauth/index.js';
import { paymentRoutes } from './modules/payments/index.js';
import { playgroundRoutes } from './modules/playground/index.js';
import { consoleRoutes } from './modules/console/index.js';
import type { Services } from './services.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The handler refuses U+0000 and lone surrogates itself (lib/nul.ts textFault, with a more precise error). */
    checksNul?: boolean;
  }
}

export const BODY_LIMIT = 64 * 1024;
/**
 * The longest request head Node parses (its default is 16 KiB; beyond it, 431). pyTelegramBotAPI
 * sends every parameter in the query string, where the longest message (5,000 characters, a
 * 4-byte one 12 bytes as %XX) is 60,000 bytes; Telegram takes heads up to 256 KiB.
 */
export const MAX_HEADER_SIZE = 64 * 1024;
/**
 * The longest path parameter the router takes (find-my-way's default is 100; beyond it, 400 "a
 * path segment is too long"), in UTF-16 code units of the decoded segment: every one a schema
 * allows fits. Ajv's maxLength counts code points, so an id of 128 (Text(128), Id) is up to 256
 * units; a Telegram bot token is at most 148 (`bot`, 16 digits, `:`, an App Key of 128).
 */
export const MAX_PARAM_LENGTH = 256;
const REQUEST_ID = /^[\w.:-]{1,64}$/;
// Request ids: unique per process start, cheaper than a UUID per request.
const ID_PREFIX = randomBytes(4).toString('hex');
let requests = 0;
/** Levels at which each request gets its log line (and so its child logger). */
const REQUEST_LOG_LEVELS = new Set(['info', 'debug', 'trace']);

export interface BuildOptions {
  /** pino options, or false for no logs (tests). */
  logger?: FastifyServerOptions['logger'];
  /** Routes of the running mode (the demo's sign-in link), added before the app is ready. */
  extraRoutes?: (app: App) => void;
  /** Compile every validator and serializer now instead of on first use (tests: a bad schema fails at once). */
  eagerSchemas?: boolean;
}

export async function buildApp(s: Services, options: BuildOptions = {}): Promise<App> {
  // Every operator path needs the bearer before anything else is said about a request: a 404 would
  // tell a stranger which paths exist, a 400 for a malformed URL that the path is one.
  const operatorRefusal = (request: FastifyRequest): AppError | undefined =>
    pathOf(request.url).startsWith('/internal/') && !bearerMatches(request.headers.authorization, s.adminTokenHash)
      ? new AppError(Errors.unauthorized)
      : undefined;
  const pages = new PageFamilies();
  /**
   * A request no route took: refused before routing (a malformed URL), or routed nowhere. The
   * operator's bearer first; then the failure page of the page family whose path it is in (a
   * browser's visitor gets a page, as the family's routes answer), else the surface's envelope.
   */
  const unrouted = (error: unknown, request: FastifyRequest, reply: FastifyReply): void => {
    const refusal = operatorRefusal(request);
    const page = refusal === undefined ? pages.errorHandlerOf(request.url) : undefined;
    if (page === undefined) {
      void errorHandler(refusal ?? error, request, reply);
      return;
    }
    closeIfBodyUnread(request, reply);
    page(error, request, reply);
  };
  const app: App = Fastify({
    logger: options.logger ?? false,
    bodyLimit: BODY_LIMIT,
    // Fastify 5 has no option of its own for this: `http` goes to http.createServer. A head still
    // arriving after Node's headersTimeout (60 s, checked every 30 s) is refused with 408, so a
    // stranger holds at most 64 KiB of head per connection for about a minute: no more than the
    // body (bodyLimit) any connection may already send for as long. How many connections one may
    // open is not capped here (the descriptor limit, or a proxy in front, does that).
    http: { maxHeaderSize: MAX_HEADER_SIZE },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // A request must arrive whole within a minute (Node answers 408 through clientErrorHandler):
    // Fastify's default, 0, let a body that stops arriving hold its connection for ever.
    requestTimeout: 60_000,
    // A connection silent this long is closed: one that never sends a request held its socket and
    // descriptor for ever. Above the longest long poll (50 s), which writes nothing while it waits.
    connectionTimeout: 70_000,
    // request.ip is the client's only behind the proxies TRUST_PROXY names.
    ...(s.config.trustProxy.length > 0 ? { trustProxy: s.config.trustProxy } : {}),
    // One line per request is written by the onResponse hook below instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `${ID_PREFIX}-${(++requests).toString(36)}`;
    },
    // Below info no request line is written, so requests share the root logger (errors carry reqId).
    childLoggerFactory: (logger, bindings) => (REQUEST_LOG_LEVELS.has(logger.level) ? logger.child(bindings) : logger),
    ajv: { customOptions: { removeAdditional: false } },
    clientErrorHandler,
    // Malformed percent-escapes in the path and the like: the surface's envelope (or the page
    // family's page), not Fastify's body.
    frameworkErrors: unrouted,
  }).withTypeProvider<TypeBoxTypeProvider>();

  limitPipelining(app.server);
  app.setValidatorCompiler(validatorCompiler(options.eagerSchemas === true));
  app.setSerializerCompiler(serializerCompiler(options.eagerSchemas === true));
  // A hook's refusal of a request no route took (a malformed query on an unknown path) is answered
  // as the not-found answer is.
  app.setErrorHandler((error, request, reply) => {
    if (request.is404) unrouted(error, request, reply);
    else void errorHandler(error, request, reply);
  });
  // Every operator path needs the bearer, unknown ones too: a 404 would tell a stranger which exist.
  app.setNotFoundHandler((request, reply) => {
    unrouted(routeNotFound(request), request, reply);
  });
  app.decorateRequest('credential', null);
  app.decorate('pageFamilies', pages);

  const logRequests = REQUEST_LOG_LEVELS.has(app.log.level);
  // One hook for both: metrics for every answered request, and (at info) one log line with its id
  // and the URL with secret query values masked.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    s.metrics.observe(request.method, route, reply.statusCode, reply.elapsedTime);
    if (logRequests) {
      request.log.info(
        {
          method: request.method,
          url: redactedUrl(request.url),
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime),
        },
        'request',
      );
    }
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    // Its connection is gone (closed for pipelining too many, http/pipelining.ts): nothing is run
    // for it, or each of the 1,500 requests one write can hold would still read the store.
    if (request.raw.socket.destroyed) {
      reply.hijack();
      done();
      return;
    }
    void reply.header('x-request-id', request.id);
    // The query parser would keep a malformed escape or invalid UTF-8 as some other text (only an
    // escape can be either: the HTTP parser refuses raw bytes outside ASCII in the URL).
    const { url } = request;
    const query = url.indexOf('?');
    const malformed = query >= 0 && url.includes('%', query) && !decodesCleanly(url.slice(query + 1));
    done(
      malformed
        ? (operatorRefusal(request) ??
            new AppError(paramErrorFor(request.url), 'querystring: malformed percent-escape or invalid UTF-8'))
        : undefined,
    );
  });

  // Query and path parameters are strings, or lists of strings for a repeated query key
  // (fast-querystring, find-my-way): only a body can nest, and they can hold U+0000 only as the
  // escape %00 in the URL (the HTTP parser refuses a raw one). The walks skip what cannot hit.
  app.addHook('preValidation', (request, _reply, done) => {
    const { body, url } = request;
    const escapedNul = url.includes('%00');
    if (body === undefined && !escapedNul) {
      done();
      return;
    }
    // routeOptions is built anew on each read, so only here; such routes refuse faulty text themselves.
    const textIsOurs = request.routeOptions.config.checksNul !== true;
    const fault = body === undefined ? undefined : inputFault(body, textIsOurs);
    if (fault === 'deep') {
      done(new AppError(paramErrorFor(url), `input nests deeper than ${MAX_DEPTH} levels`));
      return;
    }
    if (!textIsOurs) {
      done();
      return;
    }
    // Query and path parameters were UTF-8 (decodesCleanly), so only an escaped U+0000 can be there.
    const refused = fault ?? (escapedNul && (hasNul(request.query) || hasNul(request.params)) ? 'nul' : undefined);
    done(refused === undefined ? undefined : new AppError(paramErrorFor(url), TEXT_FAULTS[refused]));
  });

  // Long polls would hold a stopping server for up to 50 s.
  app.addHook('preClose', (done) => {
    s.delivery.endAll();
    done();
  });

  registerBodyParsers(app);
  await registerDocs(app, s.config.publicUrl);

  healthRoutes(app, s);
  userRoutes(app, s);
  groupRoutes(app, s);
  momentRoutes(app, s);
  activityRoutes(app, s);
  messagingRoutes(app, s);
  botApiRoutes(app, s);
  await telegramRoutes(app, s);
  oauthRoutes(app, s);
  authorizePageRoutes(app, s);
  developerSiteRoutes(app, s);
  paymentRoutes(app, s);
  playgroundRoutes(app, s);
  consoleRoutes(app, s);

  await app.register((operator: App, _options, done) => {
    // No guess limit here (the console's sign-in has one): operator-api.md answers a wrong token
    // 401, and a lock would let strangers stop the application's event feed. The token is long
    // and random (generated, or set: one under 16 characters is warned of at start), and compared
    // in constant time.
    operator.addHook('onRequest', (request, _reply, done) => {
      done(
        bearerMatches(request.headers.authorization, s.adminTokenHash) ? undefined : new AppError(Errors.unauthorized),
      );
    });
    eventRoutes(operator, s);
    appRoutes(operator, s);
    permissionRoutes(operator, s);
    pointRoutes(operator, s);
    sessionRoutes(operator, s);
    outboxRoutes(operator, s);
    assistantRoutes(operator, s);
    done();
  });

  options.extraRoutes?.(app);
  await app.ready();
  return app;
}
