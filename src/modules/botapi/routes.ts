// The bot methods (decisions.md section 2) at POST /openapi/bot/<method>. Parameters come as a
// form, JSON or query string; every answer is the {ok, result, ...} envelope, errors with HTTP 200.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { AppError, Errors } from '../../errors.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { apiKeyAuth, credentialOf } from '../auth/index.js';
import { botContent, type Content, idempotencyKeyOf, parseKeyboard } from '../messaging/index.js';
import { noStore } from '../../http/no-store.js';
import { requestParams } from '../../http/params.js';
import {
  AnswerCallbackParams,
  BotEnvelope,
  DeleteWebhookParams,
  GetUpdatesParams,
  SetWebhookParams,
  UpdateSchema,
  WebhookInfo,
  WebhookSet,
  done,
  EditMessageParams,
  MAX_TEXT,
  MeSchema,
  MessageSchema,
  SendMessageParams,
  SendToFansParams,
} from './schema.js';
import { Type } from 'typebox';

const tags = ['Bot methods'];

/** The message text: `text`, else `content` (decisions.md section 7). */
function textOf(p: { text?: string; content?: unknown }): string {
  if (p.text !== undefined) return p.text;
  if (p.content === undefined || p.content === '') throw new AppError(Errors.paramError, 'text: required');
  if (typeof p.content !== 'string' || p.content.length > MAX_TEXT) {
    throw new AppError(Errors.paramError, `content: must be text of at most ${MAX_TEXT} characters`);
  }
  return p.content;
}

export function botApiRoutes(app: App, s: Services): void {
  const auth = apiKeyAuth(s.auth, { signed: false });
  // The parameters are read by requestParams (query string and body merged) with the same schema
  // the document shows.
  const method = <R extends TSchema>(summary: string, result: R, params?: TSchema) => ({
    onRequest: auth,
    schema: {
      tags,
      summary,
      description: 'Parameters as application/x-www-form-urlencoded, JSON or query string.',
      security: [{ apiKey: [] }],
      ...(params === undefined ? {} : { mergedParams: { in: 'body' as const, schema: params } }),
      response: { 200: BotEnvelope(result) },
    },
  });
  /** The options of a method whose answer holds the webhook's secret. */
  const secret = <O extends ReturnType<typeof method>>(options: O) => ({ ...options, onRequest: [auth, noStore] });
  const bot = (request: FastifyRequest) => {
    const credential = credentialOf(request);
    return { credential, botId: s.messaging.requireBot(credential) };
  };
  const content = (p: { text?: string; content?: unknown; parse_mode: string; reply_markup?: unknown }): Content => {
    const keyboard = parseKeyboard(p.reply_markup);
    if (!keyboard.ok) throw new AppError(Errors.paramError, keyboard.error);
    return botContent(p.parse_mode, textOf(p), keyboard.keyboard);
  };

  app.post('/openapi/bot/getMe', method('The bot itself, with its level and EVM address', MeSchema), async (request) =>
    done(await s.bots.me(bot(request).botId)),
  );

  const sendParams = requestParams(SendMessageParams);
  app.post(
    '/openapi/bot/sendMessage',
    method('Send a message to a private chat or a group', MessageSchema, SendMessageParams),
    async (request, reply) => {
      const { credential } = bot(request);
      const p = sendParams(request);
      const chat = await s.messaging.chat(p.chat_id, p.chat_type);
      const sent = await s.messaging.send(credential, {
        ...content(p),
        chat,
        ...s.messaging.mentions(chat, p.mention_type, p.mention_ids),
        idempotencyKey: idempotencyKeyOf(request),
      });
      // decisions.md section 3: a repeat returns the first response, marked as replayed.
      if (sent.replayed) void reply.header('idempotent-replayed', 'true');
      return done(await s.messaging.view(sent.message));
    },
  );

  const fansParams = requestParams(SendToFansParams);
  app.post(
    '/openapi/bot/sendMessageToFans',
    method(
      'Send a message to every follower (needs the subscription_account permission)',
      Type.Object({ sent: Type.Integer() }),
      SendToFansParams,
    ),
    async (request, reply) => {
      const { credential } = bot(request);
      const fans = await s.messaging.sendToFans(credential, content(fansParams(request)), idempotencyKeyOf(request));
      if (fans.replayed) void reply.header('idempotent-replayed', 'true');
      return done(fans.result);
    },
  );

  const editParams = requestParams(EditMessageParams);
  for (const name of ['editMessageText', 'editMessage']) {
    app.post(
      `/openapi/bot/${name}`,
      method("Edit one of the bot's own messages", MessageSchema, EditMessageParams),
      async (request) => {
        const { credential } = bot(request);
        const p = editParams(request);
        const chat = await s.messaging.chat(p.chat_id, p.chat_type);
        return done(await s.messaging.view(await s.messaging.edit(credential, chat, p.message_id, content(p))));
      },
    );
  }

  const pollParams = requestParams(GetUpdatesParams);
  app.post(
    '/openapi/bot/getUpdates',
    method('Updates waiting for the bot (long polling)', Type.Array(UpdateSchema), GetUpdatesParams),
    // Answered by reply.send, not by a returned promise: nothing of the handler's (no promise
    // chain, no suspended frame) is kept while the poll is held.
    (request, reply) => {
      const p = pollParams(request);
      // Its untyped view: an Error is sent as a thrown one would be, to the error handler.
      const untyped: FastifyReply = reply;
      s.delivery.poll(
        bot(request).botId,
        { offset: p.offset, limit: p.limit, timeout: p.timeout, allowedUpdates: p.allowed_updates },
        (result) => {
          void untyped.send('error' in result ? result.error : done(result.updates));
        },
      );
    },
  );

  const webhookParams = requestParams(SetWebhookParams);
  app.post(
    '/openapi/bot/setWebhook',
    secret(
      method('Receive Updates by webhook at an https URL (switches long polling off)', WebhookSet, SetWebhookParams),
    ),
    async (request) => {
      const p = webhookParams(request);
      return done(
        await s.delivery.setWebhook(bot(request).botId, p.url, {
          secretToken: p.secret_token,
          payloadFormat: p.payload_format,
          dropPendingUpdates: p.drop_pending_updates,
        }),
      );
    },
  );

  const deleteParams = requestParams(DeleteWebhookParams);
  app.post(
    '/openapi/bot/deleteWebhook',
    method('Stop the webhook and receive by long polling again', Type.Literal(true), DeleteWebhookParams),
    async (request) =>
      done(await s.delivery.deleteWebhook(bot(request).botId, deleteParams(request).drop_pending_updates ?? false)),
  );

  app.post(
    '/openapi/bot/getWebhookInfo',
    secret(method('The webhook and its delivery state', WebhookInfo)),
    async (request) => done(await s.delivery.webhookInfo(bot(request).botId)),
  );

  const answerParams = requestParams(AnswerCallbackParams);
  for (const path of ['/openapi/answerCallbackQuery', '/openapi/bot/answerCallbackQuery']) {
    app.post(
      path,
      method('Answer a button press (callback_query)', Type.Literal(true), AnswerCallbackParams),
      async (request) => {
        const p = answerParams(request);
        return done(
          await s.delivery.answerCallbackQuery(
            bot(request).botId,
            p.callback_query_id,
            p.text ?? null,
            p.show_alert ?? false,
          ),
        );
      },
    );
  }
}
