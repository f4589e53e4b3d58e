// The operator console (/console/): a person signs in with the operator's token and gets a cookie
// holding a console session; scripts may send `Authorization: Bearer <ADMIN_TOKEN>` instead.
// Without either, browsers are sent to the sign-in page and other clients get 401. Forms are
// CSRF-checked for cookie sessions (a bearer token is not sent by a browser on its own).
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { exactJson } from '../../lib/exact-json.js';
import { AppError, Errors, renderError } from '../../errors.js';
import { cookieJar, CSRF_COOKIE } from '../../http/pages/csrf.js';
import { textsOf } from '../../http/pages/lang.js';
import { BadForm, Csrf, failure, NotSignedIn, pageRoute, seeOther as see, Text } from '../../http/pages/routes.js';
import type { App } from '../../http/types.js';
import { ledgerFailures } from '../../cli/commands/ledger-check.js';
import { TooManyGuesses } from '../../lib/guess-limit.js';
import { API_ACTOR, operatorBearer } from '../admin/index.js';
import type { Services } from '../../services.js';
import {
  auditPage,
  botPage,
  botsPage,
  CONSOLE,
  CONSOLE_SHEET,
  healthPage,
  homePage,
  messagePage,
  signInPage,
  type ConsoleContext,
  type Counts,
} from './pages.js';
import { CONSOLE_COOKIE, reservedOperatorName } from './service.js';
import { TEXTS } from './texts.js';

const Done = Type.Object({ done: Type.Optional(Type.Enum(['decided', 'redelivered'])) });
/** Before sign-in: a random value the sign-in form's CSRF token is bound to. */
const PRE_COOKIE = 'op_console_pre';
/**
 * The request's pre-sign-in value, if it has the form we make (24 random bytes in base64url): the
 * form page sets it again as it came, so a cookie of any other form is ignored, never echoed.
 */
function preOf(request: FastifyRequest): string | undefined {
  const sent = cookieJar(request).get(PRE_COOKIE);
  return sent !== undefined && /^[\w-]{32}$/.test(sent) ? sent : undefined;
}
const SIGN_IN = `${CONSOLE}/sign-in`;

interface Operator {
  name: string;
  /** The console session's token; undefined for a bearer-token script. */
  session?: string;
}

export function consoleRoutes(app: App, s: Services): void {
  const secure = s.config.publicUrl.startsWith('https://') ? '; Secure' : '';
  const cookie = (name: string, value: string, maxAge?: number) =>
    `${name}=${value}; Path=${CONSOLE}; HttpOnly; SameSite=Strict${secure}${maxAge !== undefined ? `; Max-Age=${maxAge}` : ''}`;

  /**
   * A live console session first: a signed-in operator is never refused for what else the browser
   * sends, and only a request without one tries its bearer token (counted when wrong).
   */
  async function operator(request: FastifyRequest): Promise<Operator> {
    const session = cookieJar(request).get(CONSOLE_COOKIE);
    const name = await s.console.operatorOf(session);
    if (name !== undefined && session !== undefined) return { name, session };
    const { authorization } = request.headers;
    if (await operatorBearer(s.operatorGuesses, authorization, request.ip, s.adminTokenHash))
      return { name: API_ACTOR };
    throw new NotSignedIn();
  }

  async function viewer(request: FastifyRequest, reply: FastifyReply): Promise<ConsoleContext & { who: Operator }> {
    const who = await operator(request);
    let csrf = '';
    if (who.session !== undefined) {
      const issued = s.csrf.issue(CONSOLE, who.session);
      void reply.header('set-cookie', issued.cookie);
      csrf = issued.token;
    }
    return { ...textsOf(request, TEXTS), operator: who.name, csrf, who };
  }

  async function poster(request: FastifyRequest, reply: FastifyReply, given: string | undefined) {
    const ctx = await viewer(request, reply);
    const { session } = ctx.who;
    const csrfCookie = cookieJar(request).get(CSRF_COOKIE);
    if (session !== undefined && !s.csrf.accepts(CONSOLE, session, csrfCookie, given)) throw new BadForm();
    return ctx;
  }

  function consoleError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
    if (error instanceof NotSignedIn) {
      if ((request.headers.accept ?? '').includes('text/html')) {
        void see(reply, SIGN_IN);
      } else {
        // Another client (a script with a wrong or no bearer token) gets the registry's error in
        // the envelope of /internal/, as JSON although the page's headers said HTML.
        const { status, headers, body } = renderError('internal', new AppError(Errors.unauthorized));
        void reply.code(status).headers(headers).header('content-type', 'application/json; charset=utf-8').send(body);
      }
      return;
    }
    const ctx: ConsoleContext = { ...textsOf(request, TEXTS), csrf: '' };
    const f = failure(error, request, ctx.t);
    // Retry-After of a locked-out bearer token.
    if (error instanceof AppError) void reply.headers(error.headers);
    void reply
      .code(f.status)
      .headers(CONSOLE_SHEET.headers())
      .send(messagePage(ctx, f.heading, f.text));
  }

  const page = pageRoute(['Operator console'], CONSOLE_SHEET.headers(), consoleError);
  app.pageFamilies.add(CONSOLE, consoleError);

  app.get(CONSOLE, page('Redirects to /console/', {}), (_request, reply) => see(reply, `${CONSOLE}/`));

  /** The sign-in form, with a new CSRF token, and `alert` (what went wrong last) above it. */
  function signInForm(
    request: FastifyRequest,
    reply: FastifyReply,
    alert: (t: ConsoleContext['t']) => string | undefined,
  ) {
    const pre = preOf(request) ?? randomBytes(24).toString('base64url');
    const issued = s.csrf.issue(SIGN_IN, pre);
    void reply.header('set-cookie', [cookie(PRE_COOKIE, pre), issued.cookie]);
    const ctx = { ...textsOf(request, TEXTS), csrf: issued.token };
    return reply.send(signInPage(ctx, alert(ctx.t)));
  }

  app.get(
    SIGN_IN,
    page('Sign-in form (operator token)', { querystring: Type.Object({ wrong: Type.Optional(Type.Literal('1')) }) }),
    (request, reply) => signInForm(request, reply, (t) => (request.query.wrong === '1' ? t.wrongToken : undefined)),
  );

  app.post(
    SIGN_IN,
    page('Sign in with the operator token; sets the console session cookie', {
      body: Type.Object({ csrf: Csrf, token: Text(512), name: Type.Optional(Text(64)) }),
    }),
    async (request, reply) => {
      const jar = cookieJar(request);
      const pre = preOf(request);
      if (pre === undefined || !s.csrf.accepts(SIGN_IN, pre, jar.get(CSRF_COOKIE), request.body.csrf))
        throw new BadForm();
      const { token, name } = request.body;
      if (name !== undefined && reservedOperatorName(name)) {
        void reply.code(400);
        return signInForm(request, reply, (t) => t.reservedName);
      }
      let session: string | undefined;
      try {
        // signIn compares the token before its first await, as the limiter needs.
        session = await s.operatorGuesses.attempt(request.ip, () =>
          s.console.signIn(token, name ?? '').catch((e: unknown) => {
            if (e instanceof AppError && e.def === Errors.unauthorized) return undefined;
            throw e;
          }),
        );
      } catch (e) {
        if (!(e instanceof TooManyGuesses)) throw e;
        void reply.code(429).headers(e.headers);
        return signInForm(request, reply, (t) => t.tooManyTokens(e.retryAfterS));
      }
      if (session === undefined) return see(reply, `${SIGN_IN}?wrong=1`);
      void reply.header('set-cookie', [cookie(CONSOLE_COOKIE, session), cookie(PRE_COOKIE, '', 0)]);
      return see(reply, `${CONSOLE}/`);
    },
  );

  app.post(
    `${CONSOLE}/sign-out`,
    page('Sign out of the console', { body: Type.Object({ csrf: Csrf }) }),
    async (request, reply) => {
      const ctx = await poster(request, reply, request.body.csrf);
      if (ctx.who.session !== undefined) await s.console.signOut(ctx.who.session);
      void reply.header('set-cookie', cookie(CONSOLE_COOKIE, '', 0));
      return see(reply, SIGN_IN);
    },
  );

  app.get(
    `${CONSOLE}/`,
    page('Pending permission applications (HTML)', { querystring: Done }),
    async (request, reply) => {
      const ctx = await viewer(request, reply);
      const pending = await Promise.all(
        (await s.bots.list({ status: 'pending' })).map(async (a) => {
          const { bot, owner } = await s.console.bot(a.bot_user_id);
          return { ...a, bot_name: bot.name, owner_user_id: owner, description: bot.description };
        }),
      );
      return reply.send(homePage(ctx, pending, request.query.done === 'decided' ? ctx.t.decided : undefined));
    },
  );

  for (const [action, decision] of [
    ['approve', 'approved'],
    ['reject', 'rejected'],
  ] as const) {
    app.post(
      `${CONSOLE}/applications/:id/${action}`,
      page(`${action === 'approve' ? 'Approve' : 'Reject'} a permission application`, {
        params: Type.Object({ id: Text(128) }),
        body: Type.Object({ csrf: Csrf, note: Type.Optional(Text(1000)) }),
      }),
      async (request, reply) => {
        const ctx = await poster(request, reply, request.body.csrf);
        const note = (request.body.note ?? '').trim();
        await s.console.decide(ctx.who.name, request.params.id, decision, note === '' ? null : note);
        return see(reply, `${CONSOLE}/?done=decided`);
      },
    );
  }

  app.get(
    `${CONSOLE}/bots`,
    page('Bots and apps, with search (HTML)', { querystring: Type.Object({ q: Type.Optional(Text(128)) }) }),
    async (request, reply) => {
      const ctx = await viewer(request, reply);
      const q = request.query.q ?? '';
      return reply.send(botsPage(ctx, q, await s.console.search(q)));
    },
  );

  app.get(
    `${CONSOLE}/bots/:id`,
    page("A bot's webhook health and deliveries (HTML)", { params: Type.Object({ id: Text(128) }), querystring: Done }),
    async (request, reply) => {
      const ctx = await viewer(request, reply);
      const done = request.query.done === 'redelivered' ? ctx.t.redelivered : undefined;
      return reply.send(botPage(ctx, await s.console.bot(request.params.id), done));
    },
  );

  app.post(
    `${CONSOLE}/bots/:id/deliveries/:delivery/redeliver`,
    page('Redeliver a failed webhook delivery now', {
      params: Type.Object({ id: Text(128), delivery: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }),
      body: Type.Object({ csrf: Csrf }),
    }),
    async (request, reply) => {
      const ctx = await poster(request, reply, request.body.csrf);
      await s.console.redeliver(ctx.who.name, request.params.id, request.params.delivery);
      return see(reply, `${CONSOLE}/bots/${request.params.id}?done=redelivered`);
    },
  );

  app.get(`${CONSOLE}/health`, page('Event and delivery counters, ledger check (HTML)', {}), async (request, reply) => {
    const ctx = await viewer(request, reply);
    const [events, webhooks, check] = await Promise.all([
      s.metrics.events.get(),
      s.metrics.webhookAttempts.get(),
      s.points.check(),
    ]);
    const failures = ledgerFailures(check);
    const counts: Counts = {
      events: events.values.map((v) => ({
        type: String(v.labels.type ?? ''),
        outcome: String(v.labels.outcome ?? ''),
        value: v.value,
      })),
      webhooks: webhooks.values.map((v) => ({ outcome: String(v.labels.outcome ?? ''), value: v.value })),
      ledger: {
        ok: failures.length === 0,
        failures,
        figures: Object.entries(check).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : exactJson(v)]),
      },
    };
    return reply.send(healthPage(ctx, counts));
  });

  app.get(`${CONSOLE}/audit`, page('The audit trail of operator actions (HTML)', {}), async (request, reply) => {
    const ctx = await viewer(request, reply);
    return reply.send(auditPage(ctx, await s.console.audit()));
  });
}
