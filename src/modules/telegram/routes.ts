// The Telegram-compatible bot API (telegram-api.md): {base_url}/telegram/bot<token>/<method>, GET
// or POST, parameters from the query string, JSON, a form or multipart/form-data. Parses and
// authenticates, then runs the method over the platform's core; answers {ok, result} or Telegram's
// error envelope with the HTTP status equal to error_code.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, Errors } from '../../errors.js';
import { TELEGRAM_BODY_LIMIT } from '../../http/body.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { idempotencyKeyOf } from '../messaging/index.js';
import { telegramErrorHandler } from './errors.js';
import type { TelegramMethod } from './method.js';
import { multipartBodies } from './multipart.js';
import { mergeParams } from './params.js';
import { presentUpdates } from './presenter.js';
import { methodNamed, TELEGRAM_METHODS } from './registry.js';
import { Failure, Success } from './schema.js';
import { TelegramAuth } from './service.js';
import { webhookAnswers } from './webhook-answers.js';

const tags = ['Telegram Bot API'];
const TokenParam = Type.String({ description: 'bot<bot id>:<App Key>, the bot\'s "Telegram token"' });

export async function telegramRoutes(app: App, s: Services): Promise<void> {
  // Webhooks of payload_format telegram are presented here; an answer that is a method call runs
  // through these same methods.
  s.dispatcher.telegramWire({
    present: async (tx, update) => (await presentUpdates(tx, [update]))[0],
    answer: webhookAnswers(s),
  });
  const callers = new TelegramAuth(s.credentials, s.db);

  async function run(m: TelegramMethod | undefined, token: string, request: FastifyRequest, reply: FastifyReply) {
    // Telegram's server answers a path without /bot<token>/ as one it does not serve.
    if (!token.startsWith('bot')) throw new AppError(Errors.routeNotFound);
    const auth = await callers.authenticate(token);
    if (m === undefined) throw new AppError(Errors.routeNotFound);
    const result = await m.call(
      {
        s,
        ...auth,
        idempotencyKey: () => idempotencyKeyOf(request),
        replayed: () => {
          reply.header('idempotent-replayed', 'true');
        },
      },
      mergeParams([request.query, request.body]),
    );
    return { ok: true as const, result };
  }

  await app.register(
    async (tg: App) => {
      tg.setErrorHandler(telegramErrorHandler);
      tg.setNotFoundHandler((request, reply) =>
        telegramErrorHandler(new AppError(Errors.routeNotFound), request, reply),
      );
      await multipartBodies(tg, TELEGRAM_BODY_LIMIT);
      const Params = Type.Object({ token: TokenParam });
      for (const m of TELEGRAM_METHODS) {
        tg.route({
          method: ['GET', 'POST'],
          url: `/:token/${m.name}`,
          // Fastify would answer HEAD by running the GET, which sends, edits or confirms Updates.
          exposeHeadRoute: false,
          bodyLimit: TELEGRAM_BODY_LIMIT,
          config: { checksNul: true },
          schema: {
            tags,
            summary: m.summary,
            description:
              'Parameters in the query string, a JSON body, a form or multipart/form-data (structured values as JSON text). Method names are case-insensitive.',
            params: Params,
            // Read from the query string and the body merged (params.ts), checked by the method.
            mergedParams: { in: 'querystring', schema: m.params },
            response: {
              200: Success(m.result),
              400: Failure,
              401: Failure,
              403: Failure,
              404: Failure,
              409: Failure,
              429: Failure,
            },
          },
          handler: (request, reply) => run(m, request.params.token, request, reply),
        });
      }
      // Any other spelling of a method name (they are case-insensitive), and unknown methods (404).
      tg.route({
        method: ['GET', 'POST'],
        url: '/:token/:method',
        exposeHeadRoute: false,
        bodyLimit: TELEGRAM_BODY_LIMIT,
        config: { checksNul: true },
        schema: { hide: true, params: Type.Object({ token: TokenParam, method: Type.String() }) },
        handler: (request, reply) => run(methodNamed(request.params.method), request.params.token, request, reply),
      });
    },
    { prefix: '/telegram' },
  );
}
