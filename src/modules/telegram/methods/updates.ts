// getUpdates, the webhook methods and answerCallbackQuery: the delivery core's one queue per bot,
// read with Telegram's semantics and presented as Telegram Updates (same update_id on both surfaces).
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../../../db/types.js';
import { keptKinds, updateKinds } from '../../delivery/index.js';
import { badRequest } from '../errors.js';
import { method, type MethodCall } from '../method.js';
import { presentUpdates } from '../presenter.js';
import * as repo from '../repo.js';
import { UpdateSchema } from '../schema.js';

const AllowedUpdates = Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 32 }));

/** The kinds of Update a call receives: those it names (none known: every kind), else those kept. */
async function allowedUpdates(call: MethodCall, given: readonly string[] | undefined): Promise<string[] | undefined> {
  return given !== undefined ? updateKinds(given) : keptKinds(await repo.allowedUpdates(call.s.db.k, call.botId));
}

/** Telegram keeps allowed_updates until a call that succeeds changes it: stored only then. */
const keepAllowedUpdates = (tx: Kysely<DB>, call: MethodCall, given: readonly string[]) => {
  const kinds = updateKinds(given);
  return repo.setAllowedUpdates(tx, call.botId, kinds === undefined ? null : JSON.stringify(kinds));
};

/**
 * The core's offset for Telegram's: updates below a positive offset are confirmed; none (or 0)
 * confirms nothing (the core's 1: ids start at 1); a negative one keeps only the last -offset.
 */
async function coreOffset(call: MethodCall, offset: number | undefined): Promise<number> {
  if (offset === undefined || offset === 0) return 1;
  if (offset > 0) return offset;
  const from = await repo.lastPendingFrom(call.s.db.k, call.botId, -offset);
  return from ?? (await repo.lastUpdateId(call.s.db.k, call.botId)) + 1;
}

const clamp = (n: number, min: number, max: number): number => Math.min(max, Math.max(min, n));

/** Telegram's max_connections for a webhook set without one (here: also one set natively). */
const DEFAULT_MAX_CONNECTIONS = 40;

export const updateMethods = [
  method({
    name: 'getUpdates',
    summary: 'Updates waiting for the bot (long polling); updates below offset are confirmed',
    params: Type.Object({
      offset: Type.Optional(Type.Integer({ minimum: -1e9, maximum: 2 ** 53 - 1 })),
      // Telegram takes any integer and brings it into range (limit 1 to 100, timeout 0 to 50 s).
      limit: Type.Optional(Type.Integer({ description: 'brought into 1 to 100' })),
      timeout: Type.Optional(Type.Integer({ description: 'seconds, brought into 0 to 50' })),
      allowed_updates: AllowedUpdates,
    }),
    result: Type.Array(UpdateSchema),
    run: async (call, p) => {
      const given = p.allowed_updates;
      const updates = await call.s.delivery.getUpdates(call.botId, {
        offset: await coreOffset(call, p.offset),
        limit: p.limit === undefined ? undefined : clamp(p.limit, 1, 100),
        timeout: p.timeout === undefined ? undefined : clamp(p.timeout, 0, 50),
        allowedUpdates: await allowedUpdates(call, given),
        // Kept as the poll is taken, as Telegram does on receiving it; not when it is refused.
        accepted:
          given === undefined ? undefined : () => call.s.work.run(({ tx }) => keepAllowedUpdates(tx, call, given)),
      });
      return presentUpdates(call.s.db.k, updates);
    },
  }),
  method({
    name: 'setWebhook',
    summary: 'Receive Telegram Updates at an https URL (X-Telegram-Bot-Api-Secret-Token carries secret_token)',
    params: Type.Object({
      url: Type.String({ maxLength: 2048 }),
      secret_token: Type.Optional(Type.String({ minLength: 1, maxLength: 256, pattern: '^[A-Za-z0-9_-]+$' })),
      drop_pending_updates: Type.Optional(Type.Boolean()),
      allowed_updates: AllowedUpdates,
      // Telegram brings any integer into 1 to 100 rather than refusing it, and getWebhookInfo reports
      // it. Kept and reported here too: deliveries go one at a time, which is within any maximum.
      max_connections: Type.Optional(
        Type.Integer({
          description: 'brought into 1 to 100, 40 when not given; kept and reported (deliveries go one at a time)',
        }),
      ),
      ip_address: Type.Optional(Type.String()),
      certificate: Type.Optional(Type.Unknown()),
    }),
    result: Type.Literal(true),
    run: async (call, p) => {
      // An empty url removes the webhook, as in Telegram.
      if (p.url === '') return call.s.delivery.deleteWebhook(call.botId, p.drop_pending_updates ?? false);
      const url = await call.s.delivery.vet(p.url);
      if (url.notHttps) throw badRequest('bad webhook: An HTTPS URL must be provided for webhook');
      await call.s.work.run(async (w) => {
        await call.s.delivery.setWebhookIn(w, call.botId, url, {
          secretToken: p.secret_token,
          payloadFormat: 'telegram',
          dropPendingUpdates: p.drop_pending_updates,
          maxConnections: p.max_connections === undefined ? undefined : clamp(p.max_connections, 1, 100),
        });
        if (p.allowed_updates !== undefined) await keepAllowedUpdates(w.tx, call, p.allowed_updates);
      });
      return true as const;
    },
  }),
  method({
    name: 'deleteWebhook',
    summary: 'Stop the webhook; receive by getUpdates again',
    params: Type.Object({ drop_pending_updates: Type.Optional(Type.Boolean()) }),
    result: Type.Literal(true),
    run: (call, p) => call.s.delivery.deleteWebhook(call.botId, p.drop_pending_updates ?? false),
  }),
  method({
    name: 'getWebhookInfo',
    summary: 'The webhook and its delivery state',
    params: Type.Object({}),
    result: Type.Object({
      url: Type.String(),
      has_custom_certificate: Type.Boolean(),
      pending_update_count: Type.Integer(),
      last_error_date: Type.Optional(Type.Integer()),
      last_error_message: Type.Optional(Type.String()),
      max_connections: Type.Optional(Type.Integer()),
      allowed_updates: Type.Optional(Type.Array(Type.String())),
    }),
    run: async (call) => {
      const info = await call.s.delivery.telegramWebhookInfo(call.botId);
      const allowed = await allowedUpdates(call, undefined);
      return {
        url: info.url,
        has_custom_certificate: false,
        pending_update_count: info.pending_update_count,
        ...(info.last_error_date > 0
          ? { last_error_date: info.last_error_date, last_error_message: info.last_error_message }
          : {}),
        ...(info.url !== '' ? { max_connections: info.max_connections ?? DEFAULT_MAX_CONNECTIONS } : {}),
        ...(allowed !== undefined ? { allowed_updates: allowed } : {}),
      };
    },
  }),
  method({
    name: 'answerCallbackQuery',
    summary: 'Answer a button press (callback_query)',
    params: Type.Object({
      callback_query_id: Type.String({ minLength: 1, maxLength: 128 }),
      text: Type.Optional(Type.String({ maxLength: 200 })),
      show_alert: Type.Optional(Type.Boolean()),
      url: Type.Optional(Type.String({ maxLength: 2048 })),
      cache_time: Type.Optional(Type.Integer({ minimum: 0 })),
    }),
    result: Type.Literal(true),
    run: (call, p) =>
      call.s.delivery.answerCallbackQuery(call.botId, p.callback_query_id, p.text ?? null, p.show_alert ?? false),
  }),
];
