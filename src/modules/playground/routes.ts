// The playground (/playground/): pages for users signed in with the operator's session cookie, as
// on the developer site. Writing and pressing buttons post forms (CSRF-checked) that become the
// application's own events; the live script posts them in the background and long-polls
// /playground/updates for new and edited messages.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, Errors } from '../../errors.js';
import { OperatorError } from '../../http/internal.js';
import { lookup, textsOf } from '../../http/pages/lang.js';
import {
  Csrf,
  failurePages,
  NotSignedIn,
  pageRoute,
  pageSession,
  seeOther,
  type SignedIn,
  Text,
} from '../../http/pages/routes.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { LIVE_SCRIPT } from './live-script.js';
import {
  liveItems,
  PLAYGROUND,
  PLAYGROUND_SCRIPT,
  PLAYGROUND_SHEET,
  playgroundMessagePage,
  playgroundPage,
  type PlaygroundContext,
} from './pages.js';
import type { Place } from './service.js';
import { TEXTS, type PlaygroundTexts } from './texts.js';

const Chat = { bot: Text(128), group: Type.Optional(Text(128)) };
const Form = { csrf: Csrf, ...Chat };
/** What every form of the chat posts besides its own fields. */
interface ChatFields {
  csrf?: string;
  bot: string;
  group?: string;
}
const Reason = Type.String({ pattern: '^[a-z_]{1,64}$' });
/** What a refusal the platform gave says: the table's text, or the plain one for a reason it lacks. */
const refusal = (t: PlaygroundTexts, reason: string) => lookup(t.refusals, reason) ?? t.refused;
/** What a form answers the live script (`x-playground-live: 1`) instead of a redirect. */
const LiveAnswer = Type.Object({ notice: Type.Union([Type.String(), Type.Null()]) });

const LIVE_HEADER = 'x-playground-live';

export function playgroundRoutes(app: App, s: Services): void {
  if (!s.config.playground) return;
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });

  const signIn = pageSession(s, PLAYGROUND);
  const withTexts = async (request: FastifyRequest, signedIn: Promise<SignedIn>): Promise<PlaygroundContext> => ({
    ...textsOf(request, TEXTS),
    ...(await signedIn),
  });
  const viewer = (request: FastifyRequest, reply: FastifyReply) => withTexts(request, signIn.viewer(request, reply));
  const poster = (request: FastifyRequest, reply: FastifyReply, given: string | undefined) =>
    withTexts(request, signIn.poster(request, reply, given));

  /** The chat a form posts to, as the signed-in user sees it; refused unless the form's CSRF token is right. */
  async function chatOf(request: FastifyRequest, reply: FastifyReply, form: ChatFields) {
    const ctx = await poster(request, reply, form.csrf);
    const place = await s.playground.place(ctx.userId, form.bot, form.group);
    if (place.chat === undefined) throw new AppError(Errors.unknownBot);
    return { ctx, place, chat: place.chat };
  }

  /** Every failure of a page answers as a page in its frame. */
  const pageError = failurePages(
    (request) => textsOf(request, TEXTS),
    () => PLAYGROUND_SHEET.headers(),
    (ctx, f, error) => playgroundMessagePage(ctx, f.heading, f.text, !(error instanceof NotSignedIn)),
  );

  const page = pageRoute(['Playground'], PLAYGROUND_SHEET.headers([], PLAYGROUND_SCRIPT), pageError);
  app.pageFamilies.add(PLAYGROUND, pageError);

  const back = (place: Place, extra: Record<string, string> = {}) =>
    `${PLAYGROUND}/?${new URLSearchParams({
      bot: place.bot?.user_id ?? '',
      ...(place.group !== undefined ? { group: place.group.group_id } : {}),
      ...extra,
    }).toString()}`;

  /** A form's answer: JSON for the live script, else a redirect back to the chat (POST-redirect-GET). */
  const answer = (
    request: FastifyRequest,
    reply: FastifyReply,
    place: Place,
    notice: { key: string; value: string } | undefined,
    text: string | undefined,
  ) =>
    request.headers[LIVE_HEADER] === '1'
      ? reply.header('content-type', 'application/json; charset=utf-8').send({ notice: text ?? null })
      : reply
          .code(303)
          .header('location', back(place, notice === undefined ? {} : { [notice.key]: notice.value }))
          .send();

  app.get(PLAYGROUND, page('Redirects to /playground/', {}), (_request, reply) => seeOther(reply, `${PLAYGROUND}/`));

  app.get(
    `${PLAYGROUND}/`,
    page('Talk to a bot as the signed-in user (HTML)', {
      querystring: Type.Object({
        bot: Type.Optional(Text(128)),
        group: Type.Optional(Text(128)),
        refused: Type.Optional(Reason),
        done: Type.Optional(Type.Literal('pressed')),
      }),
    }),
    async (request, reply) => {
      const ctx = await viewer(request, reply);
      const { bot, group, refused, done } = request.query;
      const place = await s.playground.place(ctx.userId, bot, group);
      const chat = place.chat === undefined ? undefined : await s.playground.conversation(place.chat);
      // A `?refused=` is whatever the link says: only a reason of the table is shown, in the table's
      // words; any other only says that something was refused, as the live answer does.
      const notice = refused !== undefined ? refusal(ctx.t, refused) : done !== undefined ? ctx.t.pressed : undefined;
      return reply.send(playgroundPage(ctx, place, chat, notice));
    },
  );

  app.get(
    `${PLAYGROUND}/live.js`,
    {
      schema: {
        tags: ['Playground'],
        summary: "The playground's script (live updates)",
        response: { 200: Type.String() },
      },
    },
    (_request, reply) => {
      void reply.headers({
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
      });
      return LIVE_SCRIPT;
    },
  );

  app.post(
    `${PLAYGROUND}/send`,
    page('Write to the chat as the signed-in user', {
      body: Type.Object({
        ...Form,
        text: Type.String({ minLength: 1, maxLength: 4000 }),
        mention: Type.Optional(Text(128)),
      }),
      response: { 200: LiveAnswer },
    }),
    async (request, reply) => {
      const { ctx, place, chat } = await chatOf(request, reply, request.body);
      const { text, mention } = request.body;
      // Only the chat's bot may be mentioned from the form.
      const mentions = mention !== undefined && mention === place.bot?.user_id ? [mention] : [];
      const refused = await s.playground.send(ctx.userId, chat, text, mentions);
      return answer(
        request,
        reply,
        place,
        refused === undefined ? undefined : { key: 'refused', value: refused },
        refused === undefined ? undefined : refusal(ctx.t, refused),
      );
    },
  );

  app.post(
    `${PLAYGROUND}/press`,
    page("Press an inline button of a bot's message (a callback query to the bot)", {
      body: Type.Object({ ...Form, message: Text(128), data: Text(4096) }),
      response: { 200: LiveAnswer },
    }),
    async (request, reply) => {
      const { ctx, place, chat } = await chatOf(request, reply, request.body);
      const refused = await s.playground.press(ctx.userId, chat, request.body.message, request.body.data);
      return answer(
        request,
        reply,
        place,
        refused === undefined ? { key: 'done', value: 'pressed' } : { key: 'refused', value: refused },
        refused === undefined ? ctx.t.pressed : refusal(ctx.t, refused),
      );
    },
  );

  app.get(
    `${PLAYGROUND}/updates`,
    {
      schema: {
        tags: ['Playground'],
        summary: 'Long poll: messages of the chat changed after a point (JSON, for the live script)',
        querystring: Type.Object({ ...Chat, after: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }) }),
        response: {
          200: Type.Object({
            cursor: Type.Integer(),
            items: Type.Array(Type.Object({ id: Type.String(), version: Type.String(), html: Type.String() })),
            /** Present when a newer live-update request of the session ended this one. */
            ended: Type.Optional(Type.Literal(true)),
          }),
          400: OperatorError,
          401: OperatorError,
          404: OperatorError,
        },
      },
    },
    async (request, reply) => {
      // Signed in as on the pages, but no CSRF cookie is set: the answer is JSON for the live script.
      const user = await signIn.signedIn(request);
      if (user === undefined) throw new AppError(Errors.unauthorized, 'not signed in');
      const { session, ...signedIn } = user;
      const { bot, group, after } = request.query;
      const place = await s.playground.place(signedIn.userId, bot, group);
      if (place.chat === undefined) throw new AppError(Errors.unknownBot);
      const ctx: PlaygroundContext = { ...textsOf(request, TEXTS), ...signedIn };
      // The response closes early when the page is left; the request's own close event fires once its body is read.
      const client = { gone: false };
      reply.raw.once('close', () => {
        client.gone = true;
      });
      void reply.header('cache-control', 'no-store');
      const chat = await s.playground.waitForChange(session, place.chat, after, () => client.gone || closing);
      return chat === undefined
        ? { cursor: after, items: [], ended: true as const }
        : { cursor: chat.cursor, items: liveItems(ctx, place, chat) };
    },
  );
}
