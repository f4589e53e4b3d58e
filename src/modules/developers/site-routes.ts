// The developer site (/developers/): pages for developers signed in with the operator's session
// cookie, as on the authorize page. Routes check the session and the CSRF token, call the
// developers' service (which holds every rule) and render; changes answer with a redirect
// (POST-redirect-GET), except those that show a secret once, which render it directly.
import type { FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { Type, type TProperties } from 'typebox';
import { Errors } from '../../errors.js';
import { toAppError } from '../../http/errors.js';
import { cookiesOf } from '../../http/pages/csrf.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { SESSION_COOKIE } from '../sessions/index.js';
import { PERMISSIONS } from '../bots/index.js';
import {
  appPage,
  botPage,
  homePage,
  messagePage,
  revealPage,
  SITE,
  type Notice,
  type PageContext,
} from './site-pages.js';
import { SITE_SHEET } from './site-style.js';

const Text = (maxLength: number) => Type.String({ maxLength });
const Csrf = Type.Optional(Text(128));
const Form = <P extends TProperties>(fields: P) => Type.Object({ csrf: Csrf, ...fields });
const BotParams = Type.Object({ id: Text(128) });
const Notices = Type.Object({ done: Type.Optional(Text(32)) });

/** What a `?done=` after a change says; anything else says nothing. */
const DONE: Record<string, Notice> = {
  profile: { tone: 'ok', text: 'Profile saved.' },
  privacy: { tone: 'ok', text: 'Privacy settings saved.' },
  cleared: { tone: 'ok', text: 'Webhook cleared: the bot receives updates by long polling again.' },
  applied: { tone: 'ok', text: "Application filed. It is pending the platform's review." },
  redelivered: { tone: 'ok', text: 'The update is queued for delivery now.' },
  uris: { tone: 'ok', text: 'Redirect URIs saved.' },
};

const lines = (text: string | undefined): string[] => (text ?? '').split(/\r?\n/);

class NotSignedIn extends Error {}
class BadForm extends Error {}

export function developerSiteRoutes(app: App, s: Services): void {
  /** The signed-in developer, and the CSRF cookie set for the site's forms. */
  async function viewer(request: FastifyRequest, reply: FastifyReply): Promise<PageContext> {
    const { session } = cookiesOf(request);
    const userId = await s.sessions.userOf(session);
    if (userId === undefined || session === undefined) throw new NotSignedIn();
    const { token, cookie } = s.csrf.issue(SITE, session);
    void reply.header('set-cookie', cookie);
    const user = await s.users.record(userId);
    return { userId, userName: user?.name ?? userId, csrf: token };
  }

  /** As viewer, for a form: refused unless its CSRF token (and cookie) belong to the session. */
  async function poster(request: FastifyRequest, reply: FastifyReply, given: string | undefined) {
    const ctx = await viewer(request, reply);
    const { session, csrf } = cookiesOf(request);
    if (session === undefined || !s.csrf.accepts(SITE, session, csrf, given)) throw new BadForm();
    return ctx;
  }

  const see = (reply: FastifyReply, path: string) => reply.code(303).header('location', path).send();

  /** Every failure of the site answers as a page in its frame, never as JSON. */
  function siteError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
    const send = (status: number, heading: string, message: string, back?: string) =>
      void reply
        .code(status)
        .headers(SITE_SHEET.headers())
        .send(messagePage(undefined, heading, message, back));
    if (error instanceof NotSignedIn) {
      send(
        401,
        'Open the developer site in the application',
        'You are not signed in here. Open the developer site from inside the application, where you are signed in.',
      );
      return;
    }
    if (error instanceof BadForm) {
      send(
        403,
        "This form can't be accepted",
        'It has expired or was not sent from this site. Reload the page and try again.',
        `${SITE}/`,
      );
      return;
    }
    const e = toAppError(error, request.url);
    const page = /^\/developers\/(?:bots|apps)\/[^/?]+/.exec(request.url)?.[0] ?? `${SITE}/`;
    if (e.def.status >= 500) {
      request.log.error({ err: error, reqId: request.id }, 'request failed');
      send(500, 'Something went wrong', 'The request could not be completed. Please try again in a moment.', page);
      return;
    }
    // A parameter error is 401 on the /openapi/ surface for compatibility; on a page it is a bad request.
    const status = e.def === Errors.paramError ? 400 : e.def.status;
    const message =
      e.def === Errors.invalidRequest || e.def === Errors.paramError ? (e.detail ?? e.def.message) : e.def.message;
    send(status, "That didn't work", `${message.charAt(0).toUpperCase()}${message.slice(1)}.`, page);
  }

  const options = <S extends FastifySchema>(summary: string, schema: S) => ({
    schema: { ...schema, tags: ['Developer site'], summary },
    onRequest: (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      void reply.headers(SITE_SHEET.headers());
      done();
    },
    errorHandler: siteError,
  });

  app.get(SITE, options('Redirects to /developers/', {}), (_request, reply) => see(reply, `${SITE}/`));

  app.post(
    `${SITE}/sign-out`,
    options('Sign out: ends the session and clears its cookie', { body: Form({}) }),
    async (request, reply) => {
      await poster(request, reply, request.body.csrf);
      const { session } = cookiesOf(request);
      if (session !== undefined) await s.sessions.end(session);
      const secure = s.config.publicUrl.startsWith('https://') ? '; Secure' : '';
      return reply
        .header('set-cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure}`)
        .code(303)
        .header('location', `${SITE}/signed-out`)
        .send();
    },
  );

  app.get(`${SITE}/signed-out`, options('Signed out (HTML)', {}), (_request, reply) =>
    reply.send(
      messagePage(
        undefined,
        'You are signed out',
        'This browser is no longer signed in to the developer site. Open it from the application to sign in again.',
      ),
    ),
  );

  app.get(`${SITE}/`, options('Your apps and bots (HTML)', { querystring: Notices }), async (request, reply) => {
    const ctx = await viewer(request, reply);
    return reply.send(homePage(ctx, await s.developers.overview(ctx.userId), DONE[request.query.done ?? '']));
  });

  app.post(
    `${SITE}/bots`,
    options('Create a bot; shows its App Key and App Secret once', {
      body: Form({ name: Text(256), description: Type.Optional(Text(2048)) }),
    }),
    async (request, reply) => {
      const ctx = await poster(request, reply, request.body.csrf);
      const { name, description = '' } = request.body;
      const bot = await s.work.run((w) => s.developers.createBot(w, ctx.userId, { name, description }));
      return reply.send(
        revealPage(ctx, {
          title: 'Your new bot',
          lead: `The bot is created (bot id ${bot.bot_user_id}). It receives updates by long polling until you set a Webhook URL.`,
          values: [
            ['App Key', bot.api_key],
            ['App Secret', bot.app_secret],
            ['Telegram token', bot.telegram_token],
            ['EVM address', bot.evm_address],
          ],
          back: `${SITE}/bots/${bot.bot_user_id}`,
        }),
      );
    },
  );

  app.post(
    `${SITE}/apps`,
    options('Create an app; shows its App Key and App Secret once', {
      body: Form({ name: Text(256), redirect_uris: Type.Optional(Text(50_000)) }),
    }),
    async (request, reply) => {
      const ctx = await poster(request, reply, request.body.csrf);
      const input = { name: request.body.name, redirect_uris: lines(request.body.redirect_uris) };
      const created = await s.work.run((w) => s.developers.createApp(w, ctx.userId, input));
      return reply.send(
        revealPage(ctx, {
          title: 'Your new app',
          lead: `The app is created (app id ${created.app_id}).`,
          values: [
            ['App Key', created.api_key],
            ['App Secret', created.app_secret],
          ],
          back: `${SITE}/apps/${created.app_id}`,
        }),
      );
    },
  );

  app.get(
    `${SITE}/bots/:id`,
    options("A bot's page (HTML)", { params: BotParams, querystring: Notices }),
    async (request, reply) => {
      const ctx = await viewer(request, reply);
      const bot = await s.developers.bot(ctx.userId, request.params.id);
      const log = await s.developers.deliveries(ctx.userId, bot.bot_user_id);
      return reply.send(botPage(ctx, bot, log, DONE[request.query.done ?? '']));
    },
  );

  app.get(
    `${SITE}/apps/:id`,
    options("An app's page (HTML)", { params: BotParams, querystring: Notices }),
    async (request, reply) => {
      const ctx = await viewer(request, reply);
      return reply.send(
        appPage(ctx, await s.developers.app(ctx.userId, request.params.id), DONE[request.query.done ?? '']),
      );
    },
  );

  // Key and secret resets, for a bot (its app) or an app; the new value is shown once.
  for (const [kind, what] of [
    ['key', 'App Key'],
    ['secret', 'App Secret'],
  ] as const) {
    const reset =
      kind === 'key' ? s.developers.resetKey.bind(s.developers) : s.developers.resetSecret.bind(s.developers);
    for (const owner of ['bots', 'apps'] as const) {
      app.post(
        `${SITE}/${owner}/:id/reset-${kind}`,
        options(`Reset the ${what}; shows the new one once`, { params: BotParams, body: Form({}) }),
        async (request, reply) => {
          const ctx = await poster(request, reply, request.body.csrf);
          const { id } = request.params;
          const appId = owner === 'bots' ? (await s.developers.bot(ctx.userId, id)).app_id : id;
          const value = await s.work.run((w) => reset(w, ctx.userId, appId));
          return reply.send(
            revealPage(ctx, {
              title: `New ${what}`,
              lead: `The old ${what} stopped working.`,
              values: [[what, value]],
              back: `${SITE}/${owner}/${id}`,
            }),
          );
        },
      );
    }
  }

  app.post(
    `${SITE}/bots/:id/profile`,
    options("Change a bot's name, avatar and description", {
      params: BotParams,
      body: Form({ name: Text(256), avatar: Type.Optional(Text(4096)), description: Type.Optional(Text(2048)) }),
    }),
    async (request, reply) => {
      const ctx = await poster(request, reply, request.body.csrf);
      const { name, avatar = '', description = '' } = request.body;
      await s.work.run((w) => s.developers.setProfile(w, ctx.userId, request.params.id, { name, avatar, description }));
      return see(reply, `${SITE}/bots/${request.params.id}?done=profile`);
    },
  );

  app.post(
    `${SITE}/bots/:id/privacy`,
    options("Change a bot's privacy settings", {
      params: BotParams,
      body: Form({
        private_messages: Type.Enum(['everyone', 'following', 'friends']),
        group_invites: Type.Enum(['everyone', 'following']),
      }),
    }),
    async (request, reply) => {
      const ctx = await poster(request, reply, request.body.csrf);
      const { private_messages, group_invites } = request.body;
      await s.work.run((w) =>
        s.developers.setPrivacy(w, ctx.userId, request.params.id, { private_messages, group_invites }),
      );
      return see(reply, `${SITE}/bots/${request.params.id}?done=privacy`);
    },
  );

  app.post(
    `${SITE}/bots/:id/webhook`,
    options('Set the Webhook URL (webhook mode); shows the Webhook Key once', {
      params: BotParams,
      body: Form({
        url: Text(2048),
        payload_format: Type.Optional(Type.Enum(['update', 'flat'])),
      }),
    }),
    async (request, reply) => {
      const ctx = await poster(request, reply, request.body.csrf);
      const { id } = request.params;
      const url = await s.delivery.vet(request.body.url.trim());
      const set = await s.work.run((w) => s.developers.setWebhook(w, ctx.userId, id, url, request.body.payload_format));
      return reply.send(
        revealPage(ctx, {
          title: 'Webhook set',
          lead: `Updates now go to ${set.url} (${set.payload_format} format); long polling is off. Each callback carries the Webhook Key as X-API-KEY and is signed with it: a Standard Webhooks library verifies the signature with the Webhook secret as it is.`,
          values: [
            ['Webhook Key', set.webhook_key],
            ['Webhook secret', set.webhook_secret],
          ],
          back: `${SITE}/bots/${id}`,
        }),
      );
    },
  );

  app.post(
    `${SITE}/bots/:id/webhook/clear`,
    options('Clear the Webhook URL (back to long polling)', { params: BotParams, body: Form({}) }),
    async (request, reply) => {
      const ctx = await poster(request, reply, request.body.csrf);
      await s.work.run((w) => s.developers.clearWebhook(w, ctx.userId, request.params.id));
      return see(reply, `${SITE}/bots/${request.params.id}?done=cleared`);
    },
  );

  app.post(
    `${SITE}/bots/:id/permissions`,
    options('Apply for a permission', {
      params: BotParams,
      body: Form({ permission: Type.Enum(PERMISSIONS) }),
    }),
    async (request, reply) => {
      const ctx = await poster(request, reply, request.body.csrf);
      const { permission } = request.body;
      await s.work.run((w) => s.developers.apply(w, ctx.userId, request.params.id, permission));
      return see(reply, `${SITE}/bots/${request.params.id}?done=applied`);
    },
  );

  app.post(
    `${SITE}/bots/:id/deliveries/:delivery/redeliver`,
    options('Redeliver a failed webhook delivery now', {
      params: Type.Object({ id: Text(128), delivery: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }),
      body: Form({}),
    }),
    async (request, reply) => {
      const ctx = await poster(request, reply, request.body.csrf);
      const { id, delivery } = request.params;
      await s.work.run((w) => s.developers.redeliver(w, ctx.userId, id, delivery));
      return see(reply, `${SITE}/bots/${id}?done=redelivered`);
    },
  );

  app.post(
    `${SITE}/apps/:id/redirect-uris`,
    options("Replace an app's redirect URIs", {
      params: BotParams,
      body: Form({ redirect_uris: Type.Optional(Text(50_000)) }),
    }),
    async (request, reply) => {
      const ctx = await poster(request, reply, request.body.csrf);
      const uris = lines(request.body.redirect_uris);
      await s.work.run((w) => s.developers.setRedirectUris(w, ctx.userId, request.params.id, uris));
      return see(reply, `${SITE}/apps/${request.params.id}?done=uris`);
    },
  );
}
