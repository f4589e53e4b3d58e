// The developer site (/developers/): pages for developers signed in with the operator's session
// cookie, as on the authorize page. Routes check the session and the CSRF token, call the
// services (the input rules: lib/input-rules.ts) and render; changes answer with a redirect
// (POST-redirect-GET), except those that show a secret once, which render it directly.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TProperties } from 'typebox';
import { cookiesOf } from '../../http/pages/csrf.js';
import { lookup, textsOf } from '../../http/pages/lang.js';
import {
  BadForm,
  Csrf,
  failurePages,
  NotSignedIn,
  pageRoute,
  pageSession,
  seeOther as see,
  Text,
} from '../../http/pages/routes.js';
import type { App } from '../../http/types.js';
import type { Work } from '../../db/work.js';
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
  SITE_SHEET,
  type Notice,
  type PageContext,
} from './site-pages.js';
import { TEXTS, type SiteTexts } from './site-texts.js';

const Form = <P extends TProperties>(fields: P) => Type.Object({ csrf: Csrf, ...fields });
const BotParams = Type.Object({ id: Text(128) });
const Notices = Type.Object({ done: Type.Optional(Text(32)) });

/** What a `?done=` after a change says; anything else says nothing. */
function done(t: SiteTexts, key: string | undefined): Notice | undefined {
  const text = lookup(t.done, key);
  return text === undefined ? undefined : { tone: 'ok', text };
}

const lines = (text: string | undefined): string[] => (text ?? '').split(/\r?\n/);

export function developerSiteRoutes(app: App, s: Services): void {
  const signIn = pageSession(s, SITE);
  /** The signed-in developer, and the CSRF cookie set for the site's forms. */
  const viewer = async (request: FastifyRequest, reply: FastifyReply): Promise<PageContext> => ({
    ...textsOf(request, TEXTS),
    ...(await signIn.viewer(request, reply)),
  });
  /** As viewer, for a form: refused unless its CSRF token (and cookie) belong to the session. */
  const poster = async (request: FastifyRequest, reply: FastifyReply, given: string | undefined) => ({
    ...textsOf(request, TEXTS),
    ...(await signIn.poster(request, reply, given)),
  });

  /** Every failure of the site answers as a page in its frame, never as JSON. */
  const siteError = failurePages(
    (request) => textsOf(request, TEXTS),
    () => SITE_SHEET.headers(),
    (ctx, f, error, request) => {
      // A refused form, or a URL no route took, goes back to the start; another failure to the
      // page it came from.
      const back =
        error instanceof NotSignedIn
          ? undefined
          : error instanceof BadForm || request.routeOptions.url === undefined
            ? `${SITE}/`
            : (/^\/developers\/(?:bots|apps)\/[^/?]+/.exec(request.url)?.[0] ?? `${SITE}/`);
      return messagePage(ctx, f.heading, f.text, back);
    },
  );

  /** A form that changes a bot or an app: checked, run as one unit of work, then back to its page with a notice. */
  async function change(
    request: FastifyRequest,
    reply: FastifyReply,
    form: { csrf?: string; page: string; done: string },
    run: (w: Work, userId: string) => Promise<unknown>,
  ) {
    const ctx = await poster(request, reply, form.csrf);
    await s.work.run((w) => run(w, ctx.userId));
    return see(reply, `${SITE}/${form.page}?done=${form.done}`);
  }

  const options = pageRoute(['Developer site'], SITE_SHEET.headers(), siteError);
  app.pageFamilies.add(SITE, siteError);

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

  app.get(`${SITE}/signed-out`, options('Signed out (HTML)', {}), (request, reply) => {
    const ctx = textsOf(request, TEXTS);
    return reply.send(messagePage(ctx, ctx.t.signedOut, ctx.t.signedOutText));
  });

  app.get(`${SITE}/`, options('Your apps and bots (HTML)', { querystring: Notices }), async (request, reply) => {
    const ctx = await viewer(request, reply);
    return reply.send(homePage(ctx, await s.developers.overview(ctx.userId), done(ctx.t, request.query.done)));
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
          title: ctx.t.newBotTitle,
          lead: ctx.t.newBotLead(bot.bot_user_id),
          values: [
            [ctx.t.appKey, bot.api_key],
            [ctx.t.appSecret, bot.app_secret],
            [ctx.t.telegramToken, bot.telegram_token],
            [ctx.t.evmAddress, bot.evm_address],
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
          title: ctx.t.newAppTitle,
          lead: ctx.t.newAppLead(created.app_id),
          values: [
            [ctx.t.appKey, created.api_key],
            [ctx.t.appSecret, created.app_secret],
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
      return reply.send(botPage(ctx, bot, log, done(ctx.t, request.query.done)));
    },
  );

  app.get(
    `${SITE}/apps/:id`,
    options("An app's page (HTML)", { params: BotParams, querystring: Notices }),
    async (request, reply) => {
      const ctx = await viewer(request, reply);
      return reply.send(
        appPage(ctx, await s.developers.app(ctx.userId, request.params.id), done(ctx.t, request.query.done)),
      );
    },
  );

  // Key and secret resets, for a bot (its app) or an app; the new value is shown once.
  for (const [kind, what] of [
    ['key', 'appKey'],
    ['secret', 'appSecret'],
  ] as const) {
    const reset =
      kind === 'key' ? s.developers.resetKey.bind(s.developers) : s.developers.resetSecret.bind(s.developers);
    for (const owner of ['bots', 'apps'] as const) {
      app.post(
        `${SITE}/${owner}/:id/reset-${kind}`,
        options(`Reset the ${TEXTS.en[what]}; shows the new one once`, { params: BotParams, body: Form({}) }),
        async (request, reply) => {
          const ctx = await poster(request, reply, request.body.csrf);
          const { id } = request.params;
          const appId = owner === 'bots' ? (await s.developers.bot(ctx.userId, id)).app_id : id;
          const value = await s.work.run((w) => reset(w, ctx.userId, appId, owner === 'bots' ? 'bot' : 'app'));
          return reply.send(
            revealPage(ctx, {
              title: ctx.t.newValue(ctx.t[what]),
              lead: ctx.t.oldStopped(ctx.t[what]),
              values: [[ctx.t[what], value]],
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
      const { csrf, name, avatar = '', description = '' } = request.body;
      const { id } = request.params;
      return change(request, reply, { csrf, page: `bots/${id}`, done: 'profile' }, (w, userId) =>
        s.developers.setProfile(w, userId, id, { name, avatar, description }),
      );
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
      const { csrf, private_messages, group_invites } = request.body;
      const { id } = request.params;
      return change(request, reply, { csrf, page: `bots/${id}`, done: 'privacy' }, (w, userId) =>
        s.developers.setPrivacy(w, userId, id, { private_messages, group_invites }),
      );
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
          title: ctx.t.webhookSet,
          lead: ctx.t.webhookSetLead(set.url, set.payload_format),
          values: [
            [ctx.t.webhookKey, set.webhook_key],
            [ctx.t.webhookSecret, set.webhook_secret],
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
      const { id } = request.params;
      return change(request, reply, { csrf: request.body.csrf, page: `bots/${id}`, done: 'cleared' }, (w, userId) =>
        s.developers.clearWebhook(w, userId, id),
      );
    },
  );

  app.post(
    `${SITE}/bots/:id/permissions`,
    options('Apply for a permission', {
      params: BotParams,
      body: Form({ permission: Type.Enum(PERMISSIONS) }),
    }),
    async (request, reply) => {
      const { csrf, permission } = request.body;
      const { id } = request.params;
      return change(request, reply, { csrf, page: `bots/${id}`, done: 'applied' }, (w, userId) =>
        s.developers.apply(w, userId, id, permission),
      );
    },
  );

  app.post(
    `${SITE}/bots/:id/deliveries/:delivery/redeliver`,
    options('Redeliver a failed webhook delivery now', {
      params: Type.Object({ id: Text(128), delivery: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }),
      body: Form({}),
    }),
    async (request, reply) => {
      const { id, delivery } = request.params;
      return change(request, reply, { csrf: request.body.csrf, page: `bots/${id}`, done: 'redelivered' }, (w, userId) =>
        s.developers.redeliver(w, userId, id, delivery),
      );
    },
  );

  app.post(
    `${SITE}/apps/:id/redirect-uris`,
    options("Replace an app's redirect URIs", {
      params: BotParams,
      body: Form({ redirect_uris: Type.Optional(Text(50_000)) }),
    }),
    async (request, reply) => {
      const uris = lines(request.body.redirect_uris);
      const { id } = request.params;
      return change(request, reply, { csrf: request.body.csrf, page: `apps/${id}`, done: 'uris' }, (w, userId) =>
        s.developers.setRedirectUris(w, userId, id, uris),
      );
    },
  );
}
