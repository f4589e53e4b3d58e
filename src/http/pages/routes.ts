// What the routes of the page families share: the forms' fields, the options of a page route (its
// headers, its OpenAPI tag, failures answered as pages), the families by path (what answers a
// request there that no route takes), the signed-in user of a page with the check of a form's CSRF
// token, and what a failure shows.
import type { FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { Type } from 'typebox';
import { Errors, pathOf, type AppError } from '../../errors.js';
import type { Services } from '../../services.js';
import { toAppError } from '../errors.js';
import { cookiesOf } from './csrf.js';
import type { CommonTexts } from './lang.js';

export const Text = (maxLength: number) => Type.String({ maxLength });
/** The CSRF token of every form. */
export const Csrf = Type.Optional(Text(128));

/** No session (or no valid one): each family answers it its own way. */
export class NotSignedIn extends Error {}
/** A form without its session's CSRF token and cookie. */
export class BadForm extends Error {}

type PageErrorHandler = (error: unknown, request: FastifyRequest, reply: FastifyReply) => void;

declare module 'fastify' {
  interface FastifyInstance {
    /** Decorated by buildApp; each family of pages under a path of its own adds itself. */
    pageFamilies: PageFamilies;
  }
}

/**
 * The families of pages under a path of their own (`/developers`, `/console`, `/playground`), each
 * with its failure pages: a request there that no route takes (a path the router refused, such as
 * a malformed escape or a segment too long, or one it does not know) is answered by the family's
 * page, as its routes' failures are, not in the JSON envelope of the API surfaces.
 */
export class PageFamilies {
  private readonly families = new Map<string, PageErrorHandler>();

  /** The family of the pages at `prefix` and below it, failing as `errorHandler` answers. */
  add(prefix: string, errorHandler: PageErrorHandler): void {
    this.families.set(prefix, errorHandler);
  }

  /** The failure pages of the family whose path `url` is in, if any. */
  errorHandlerOf(url: string): PageErrorHandler | undefined {
    const path = pathOf(url);
    for (const [prefix, errorHandler] of this.families) {
      if (path === prefix || path.startsWith(`${prefix}/`)) return errorHandler;
    }
    return undefined;
  }
}

/** The options of a family's page routes: its tags in the API reference, its headers, its failure pages. */
export const pageRoute =
  (tags: readonly string[], headers: Record<string, string>, errorHandler: PageErrorHandler) =>
  <S extends FastifySchema>(summary: string, schema: S) => ({
    schema: { ...schema, tags: [...tags], summary },
    onRequest: (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      void reply.headers(headers);
      done();
    },
    errorHandler,
  });

/** POST-redirect-GET. */
export const seeOther = (reply: FastifyReply, path: string) => reply.code(303).header('location', path).send();

export interface Failure {
  status: number;
  heading: string;
  text: string;
}

type FailureTexts = CommonTexts & { badFormText: string };

/**
 * What a failed page request shows, but for NotSignedIn, which the caller answers. A server error
 * is logged and says nothing more; any other is worded by `word` when a family words its own, else
 * only a parameter error tells its detail.
 */
export function failure(
  error: unknown,
  request: FastifyRequest,
  t: FailureTexts,
  word?: (e: AppError) => Failure,
): Failure {
  if (error instanceof BadForm) return { status: 403, heading: t.badForm, text: t.badFormText };
  const e = toAppError(error, request.url);
  if (e.def.status >= 500) {
    request.log.error({ err: error, reqId: request.id }, 'request failed');
    // Its own status: a store that cannot serve is 503, which a client or monitor retries.
    return { status: e.def.status, heading: t.broken, text: t.brokenText };
  }
  if (word !== undefined) return word(e);
  // A parameter error is 401 on the /openapi/ surface for compatibility; on a page it is a bad request.
  const parameters = e.def === Errors.invalidRequest || e.def === Errors.paramError;
  const message = parameters ? (e.detail ?? e.def.message) : e.def.message;
  return {
    status: e.def === Errors.paramError ? 400 : e.def.status,
    heading: t.failed,
    text: `${message.charAt(0).toUpperCase()}${message.slice(1)}.`,
  };
}

/**
 * The failure pages of a family whose pages need a session: NotSignedIn answers 401 in the
 * family's signed-out words, any other failure as `failure` says; `render` draws the page in the
 * family's frame.
 */
export function failurePages<C extends { t: FailureTexts & { notSignedIn: string; notSignedInText: string } }>(
  contextOf: (request: FastifyRequest) => C,
  headers: () => Record<string, string>,
  render: (ctx: C, f: Failure, error: unknown, request: FastifyRequest) => string,
): PageErrorHandler {
  return (error, request, reply) => {
    const ctx = contextOf(request);
    const { t } = ctx;
    const f =
      error instanceof NotSignedIn
        ? { status: 401, heading: t.notSignedIn, text: t.notSignedInText }
        : failure(error, request, t);
    void reply
      .code(f.status)
      .headers(headers())
      .send(render(ctx, f, error, request));
  };
}

/** The user signed in with the operator's session cookie, and the CSRF token of the page's forms. */
export interface SignedIn {
  userId: string;
  userName: string;
  csrf: string;
}

/** The signed-in user of the pages under `path`, whose forms' tokens are bound to that path. */
export function pageSession(s: Pick<Services, 'sessions' | 'users' | 'csrf'>, path: string) {
  /**
   * The signed-in user and their session, with the CSRF token of the page's forms (its cookie goes
   * to `setCookie`); undefined without a valid session.
   */
  async function signedIn(
    request: FastifyRequest,
    setCookie: (cookie: string) => void = () => undefined,
  ): Promise<(SignedIn & { session: string }) | undefined> {
    const { session } = cookiesOf(request);
    const userId = await s.sessions.userOf(session);
    if (userId === undefined || session === undefined) return undefined;
    const { token, cookie } = s.csrf.issue(path, session);
    setCookie(cookie);
    const user = await s.users.record(userId);
    return { userId, userName: user?.name ?? userId, csrf: token, session };
  }

  /** The signed-in user, with the CSRF cookie set for the page's forms. */
  async function viewer(request: FastifyRequest, reply: FastifyReply): Promise<SignedIn> {
    const user = await signedIn(request, (cookie) => {
      void reply.header('set-cookie', cookie);
    });
    if (user === undefined) throw new NotSignedIn();
    return { userId: user.userId, userName: user.userName, csrf: user.csrf };
  }

  /** As viewer, for a form: refused unless its CSRF token (and cookie) belong to the session. */
  async function poster(request: FastifyRequest, reply: FastifyReply, given: string | undefined): Promise<SignedIn> {
    const signedIn = await viewer(request, reply);
    const { session, csrf } = cookiesOf(request);
    if (session === undefined || !s.csrf.accepts(path, session, csrf, given)) throw new BadForm();
    return signedIn;
  }

  return { signedIn, viewer, poster };
}
