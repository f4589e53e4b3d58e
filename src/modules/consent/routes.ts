// GET and POST /oauth/authorize: the page where a signed-in user allows or cancels an app's login
// (seed-api.md "Authorization login") or payment ("Authorized payment"); decisions.md section 5.
// CSRF as http/pages/csrf.ts describes, with its cookie on Path=/oauth.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, Errors } from '../../errors.js';
import type { App } from '../../http/types.js';
import { cookiesOf, CSRF_FIELD } from '../../http/pages/csrf.js';
import { parseUrl } from '../../http/pages/html.js';
import { requestLang, textsOf } from '../../http/pages/lang.js';
import { failure, pageRoute, type Failure } from '../../http/pages/routes.js';
import { textFault } from '../../lib/nul.js';
import type { Services } from '../../services.js';
import { type PaymentRequest, SOURCE } from '../payments/index.js';
import { type AppRef, AUTHORIZE_PATH, pkceProblem, type Scope, SCOPES } from '../oauth/index.js';
import { consentPage, errorPage, openInAppPage, pageHeaders, type Party } from './page.js';
import { TEXTS, type AuthorizeTexts } from './texts.js';

const CSRF_PATH = '/oauth';

/** The request's parameters; the form posts back those that were given, each as it was spelled. */
const REQUEST_FIELDS = [
  'redirect_uri',
  'app_id',
  'client_id',
  'scope',
  'grant_type',
  'response_type',
  'state',
  'pay_info',
  'amount',
  'payer_user_id',
  'receiver_user_id',
  'pay_type',
  'code_challenge',
  'code_challenge_method',
] as const;
const PAYMENT_FIELDS = ['amount', 'payer_user_id', 'receiver_user_id', 'pay_type', 'pay_info'] as const;
const SINGLE_FIELDS = new Set<string>([...REQUEST_FIELDS, CSRF_FIELD, 'action']);

type Said = (t: AuthorizeTexts) => string;

/** A problem shown to the user as an error page with this status, in the page's language. */
class PageProblem extends Error {
  constructor(
    readonly status: number,
    readonly heading: Said,
    readonly said: Said,
  ) {
    super(said(TEXTS.en));
  }
}

const invalid = (said: Said) => new PageProblem(400, (t) => t.cant, said);

type Fields = Partial<Record<string, string>>;

/** Query or form fields as strings; a known field given twice is refused rather than guessed. */
function fieldsOf(input: unknown): Fields {
  const out: Fields = {};
  if (typeof input !== 'object' || input === null) return out;
  for (const [key, value] of Object.entries(input)) {
    if (typeof value === 'string') out[key] = value;
    else if (SINGLE_FIELDS.has(key)) throw invalid((t) => t.givenTwice(key));
  }
  // The state, say, goes back in the redirect's query, where a lone surrogate cannot be encoded.
  const fault = textFault(out);
  if (fault !== undefined) throw invalid((t) => t[fault]);
  return out;
}

/**
 * The app: app_id, or client_id as RFC 6749 section 4.1.1 spells it (what standard clients send).
 * Empty is not given; given both ways, only alike: no telling which one the client meant.
 */
function appIdOf(f: Fields): string | undefined {
  const [named, client] = [f.app_id, f.client_id].map((v) => (v === '' ? undefined : v));
  if (named !== undefined && client !== undefined && named !== client) throw invalid((t) => t.clientIdDiffers);
  return named ?? client;
}

const isScope = (v: string): v is Scope => (SCOPES as readonly string[]).includes(v);

interface AuthorizeRequest {
  app: AppRef;
  redirectUri: string;
  scope: Scope;
  /** Present for grant_type onetime_token. */
  payment: PaymentRequest | undefined;
  state: string | undefined;
  /** PKCE S256 challenge, kept with the code. */
  codeChallenge: string | undefined;
  /** The request's own parameters, for the form to post back. */
  given: Record<string, string>;
}

/**
 * Checks what needs no signed-in user. The app and its redirect URI come first: until both are
 * known good, nothing may redirect.
 */
async function parseRequest(s: Services, f: Fields): Promise<AuthorizeRequest> {
  const { redirect_uri: redirectUri, scope, grant_type: grant } = f;
  const appId = appIdOf(f);
  if (appId === undefined) throw invalid((t) => t.missing('app_id'));
  if (redirectUri === undefined || redirectUri === '') throw invalid((t) => t.missing('redirect_uri'));
  const app = await s.oauth.appForRedirect(appId, redirectUri);
  if (app === undefined) throw invalid((t) => t.unknownApp);
  if (scope === undefined || !isScope(scope)) throw invalid((t) => t.badScope);
  if (grant !== 'authorization_code' && grant !== 'onetime_token') throw invalid((t) => t.badGrant);
  if (grant === 'onetime_token' && scope !== 'payment') throw invalid((t) => t.onetimeNeedsPayment);
  if (f.response_type !== undefined && f.response_type !== 'code') throw invalid((t) => t.badResponseType);
  // Empty means not given (clients send unset fields so), as the token endpoint reads code_verifier.
  const codeChallenge = f.code_challenge === '' ? undefined : f.code_challenge;
  const pkce = pkceProblem(codeChallenge, f.code_challenge_method === '' ? undefined : f.code_challenge_method);
  if (pkce !== undefined) throw invalid(() => pkce);
  let payment: PaymentRequest | undefined;
  if (grant === 'onetime_token') {
    const missing = PAYMENT_FIELDS.filter((k) => f[k] === undefined);
    if (missing.length > 0) throw invalid((t) => t.paymentNeeds(missing.join(', ')));
    payment = {
      amount: f.amount ?? '',
      payer_user_id: f.payer_user_id ?? '',
      receiver_user_id: f.receiver_user_id ?? '',
      pay_type: f.pay_type ?? '',
      pay_info: f.pay_info ?? '',
    };
  }
  const given: Record<string, string> = {};
  for (const k of REQUEST_FIELDS) {
    const v = f[k];
    if (v !== undefined) given[k] = v;
  }
  return { app, redirectUri, scope, payment, state: f.state, codeChallenge, given };
}

/**
 * The redirect URI with parameters appended. Its own query is kept byte for byte (re-encoding it
 * could break a client that signs its callback URL); a fragment stays last.
 */
export function withParams(uri: string, params: Readonly<Record<string, string | undefined>>): string {
  const hashAt = uri.indexOf('#');
  const base = hashAt < 0 ? uri : uri.slice(0, hashAt);
  const fragment = hashAt < 0 ? '' : uri.slice(hashAt);
  const pairs = Object.entries(params).flatMap(([k, v]) =>
    v === undefined ? [] : [`${encodeURIComponent(k)}=${encodeURIComponent(v)}`],
  );
  const separator = !base.includes('?') ? '?' : /[?&]$/.test(base) ? '' : '&';
  const joined = `${base}${separator}${pairs.join('&')}${fragment}`;
  // href percent-encodes whatever a registered URI holds that a Location header cannot.
  return parseUrl(joined)?.href ?? joined;
}

/** Every failure of these routes, body parsing included, answers as a page, never as JSON. */
function pageError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const { lang, t } = textsOf(request, TEXTS);
  const f: Failure =
    error instanceof PageProblem
      ? { status: error.status, heading: error.heading(t), text: error.said(t) }
      : failure(error, request, t, (e) =>
          // Login-flow errors (PaymentsService.validate) carry HTTP 200 for the JSON API; here they are a bad request.
          e.def.loginCode !== undefined
            ? { status: 400, heading: t.cant, text: t.invalidPayment(e.detail ?? e.def.message) }
            : e.def === Errors.rateLimited
              ? { status: e.def.status, heading: t.cant, text: t.tooManyAllows(e.headers['retry-after'] ?? '1') }
              : { status: e.def.status, heading: t.cant, text: `${e.detail ?? e.def.message}.` },
        );
  void reply
    .code(f.status)
    .headers(pageHeaders())
    // Retry-After and the RateLimit fields of a 429, as every other 429 carries them.
    .headers(error instanceof AppError ? error.headers : {})
    .send(errorPage(f.heading, f.text, lang));
}

/** Hundredths as the page shows them: 2550 -> "25.50", 1200 -> "12" (two decimals or none, like money). */
export const pointsText = (cents: number): string =>
  cents % 100 === 0 ? String(cents / 100) : `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

const page = (summary: string, description: string) => ({
  ...pageRoute(['Authorization login', 'Authorized payment'], pageHeaders(), pageError)(summary, { description }),
  config: { checksNul: true },
});

export function authorizePageRoutes(app: App, s: Services): void {
  const party = async (userId: string): Promise<Party> => ({
    userId,
    name: (await s.users.record(userId))?.name ?? userId,
  });

  app.get(
    AUTHORIZE_PATH,
    page(
      'The authorization page (HTML) the user opens in the application',
      'Query: redirect_uri, app_id (or client_id, RFC 6749; both only alike), scope (moment or payment), grant_type (authorization_code, or onetime_token ' +
        'for a payment), response_type?, state?, pay_info?; for a payment also amount, payer_user_id, ' +
        'receiver_user_id, pay_type (send or receive); PKCE: code_challenge and code_challenge_method=S256. Needs the op_session cookie; errors are pages that never redirect.',
    ),
    async (request, reply) => {
      const r = await parseRequest(s, fieldsOf(request.query));
      const { session } = cookiesOf(request);
      const userId = await s.sessions.userOf(session);
      if (userId === undefined || session === undefined)
        return reply.send(openInAppPage(r.app.name, requestLang(request)));

      let payment: Parameters<typeof consentPage>[0]['payment'];
      if (r.payment !== undefined) {
        const checked = await s.payments.validate(userId, r.payment, r.app);
        payment = {
          payType: r.payment.pay_type === 'send' ? 'send' : 'receive',
          amount: pointsText(checked.cents),
          payer: await party(checked.payer),
          receiver: await party(checked.receiver),
          payInfo: r.payment.pay_info,
        };
      }
      const { token, cookie } = s.csrf.issue(CSRF_PATH, session);
      return reply
        .headers(pageHeaders(r.redirectUri))
        .header('set-cookie', cookie)
        .send(
          consentPage(
            {
              appName: r.app.name,
              user: await party(userId),
              scope: r.scope,
              returnHost: parseUrl(r.redirectUri)?.host ?? r.redirectUri,
              hidden: { ...r.given, [CSRF_FIELD]: token },
              ...(payment !== undefined ? { payment } : {}),
            },
            requestLang(request),
          ),
        );
    },
  );

  app.post(
    AUTHORIZE_PATH,
    page(
      'The answer of the authorization page (form): action allow or cancel',
      'The page form: the request parameters, csrf and action. Redirects (302) to redirect_uri with code, ' +
        'userId and source (login), code, serial_id, source and the order as confirmed (amount as exact decimal ' +
        'text, pay_type, payer_user_id, receiver_user_id) for a payment, or error=access_denied; state when given.',
    ),
    async (request, reply) => {
      const f = fieldsOf(request.body);
      const { session, csrf } = cookiesOf(request);
      const userId = await s.sessions.userOf(session);
      if (userId === undefined || session === undefined) {
        throw new PageProblem(
          403,
          (t) => t.notSignedInHeading,
          (t) => t.notSignedInText,
        );
      }
      if (!s.csrf.accepts(CSRF_PATH, session, csrf, f[CSRF_FIELD])) {
        throw new PageProblem(
          403,
          (t) => t.badForm,
          (t) => t.badFormText,
        );
      }
      const r = await parseRequest(s, f);
      const back = (params: Record<string, string>) =>
        reply
          .code(302)
          .header('location', withParams(r.redirectUri, { ...params, state: r.state }))
          .send();
      switch (f.action) {
        case 'cancel':
          return back({ error: 'access_denied' });
        case 'allow': {
          // Each Allow adds a row (a code or a one-time token), so each spends from the user's budget:
          // a payment's once its order passed its checks (payments.authorize), a login's here.
          if (r.payment !== undefined) {
            // With the order as confirmed: the user may have edited the request's amount or parties.
            return back(await s.payments.authorize(r.app, userId, r.payment));
          }
          await s.oauth.admitAllow(userId);
          const code = await s.oauth.issueCode(r.app, userId, r.redirectUri, r.scope, r.codeChallenge);
          return back({ code, userId, source: SOURCE });
        }
        default:
          throw invalid((t) => t.badAction);
      }
    },
  );
}
