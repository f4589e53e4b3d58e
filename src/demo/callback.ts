// With --demo only: the Demo App as a real client of the login flow. /demo/login starts it (a PKCE
// verifier and a state kept in a cookie, then the authorize page with the S256 challenge);
// /demo/callback, the Demo App's registered redirect URI, exchanges the code at the token endpoint
// with the app's credentials and the verifier, and shows the user POST /openapi/user/info returns.
// Both calls go through the platform's own HTTP pipeline (inject), so PUBLIC_URL need not be
// reachable from the server itself.
import { randomBytes } from 'node:crypto';
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import type { App } from '../http/types.js';
import { cookieJar } from '../http/pages/csrf.js';
import { AUTHORIZE_PATH, challengeOf } from '../modules/oauth/index.js';
import type { Services } from '../services.js';
import { demoPageHeaders, problemPage, signedInPage } from './callback-page.js';
import type { Demo } from './demo.js';

const COOKIE = 'demo_oauth';
const COOKIE_TTL_S = 600;

const Success = <T extends Parameters<typeof Type.Object>[0]>(data: T) =>
  Compile(Type.Object({ code: Type.Literal(1), data: Type.Object(data) }));
const TokenAnswer = Success({ access_token: Type.String() });
const UserAnswer = Success({ name: Type.String(), wallet_address: Type.String(), uid: Type.String() });
const Failure = Compile(Type.Object({ code: Type.Number(), message: Type.String() }));

const failureText = (body: unknown): string =>
  Failure.Check(body) ? `${body.message} (${body.code})` : 'an unexpected answer';

export function demoClient(app: App, s: Services, demo: Demo): void {
  const redirectUri = `${s.config.publicUrl}/demo/callback`;
  const secure = s.config.publicUrl.startsWith('https://') ? '; Secure' : '';
  const cookie = (value: string, maxAge: number) =>
    `${COOKIE}=${value}; Path=/demo; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;

  app.get('/demo/login', { schema: { hide: true, response: { 302: Type.Null() } } }, async (_request, reply) => {
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(16).toString('base64url');
    const query = new URLSearchParams({
      app_id: demo.app.app_id,
      redirect_uri: redirectUri,
      scope: 'moment',
      grant_type: 'authorization_code',
      response_type: 'code',
      state,
      code_challenge: challengeOf(verifier),
      code_challenge_method: 'S256',
    });
    return reply
      .header('set-cookie', cookie(`${state}.${verifier}`, COOKIE_TTL_S))
      .redirect(`${AUTHORIZE_PATH}?${query.toString()}`, 302);
  });

  app.get(
    '/demo/callback',
    {
      schema: {
        hide: true,
        querystring: Type.Object({
          code: Type.Optional(Type.String({ maxLength: 512 })),
          userId: Type.Optional(Type.String({ maxLength: 128 })),
          state: Type.Optional(Type.String({ maxLength: 512 })),
          error: Type.Optional(Type.String({ maxLength: 128 })),
        }),
        response: { 200: Type.String(), 400: Type.String() },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const problem = (heading: string, message: string) =>
        reply.code(400).headers(demoPageHeaders()).send(problemPage(heading, message));
      const [state, verifier] = (cookieJar(request).get(COOKIE) ?? '').split('.');
      if (state === undefined || verifier === undefined || q.state !== state) {
        return problem('This sign-in was not started here', 'Start it again from /demo/login in this browser.');
      }
      // Used once: a reload of this address must not try the spent code again.
      void reply.header('set-cookie', cookie('', 0));
      if (q.error !== undefined) return problem('Sign-in cancelled', `The authorize page answered ${q.error}.`);
      if (q.code === undefined || q.userId === undefined) {
        return problem('No code came back', 'The redirect carried no code or userId.');
      }
      const exchanged = await app.inject({
        method: 'POST',
        url: '/openapi/oauth2/access_token',
        payload: {
          grant_type: 'authorization_code',
          code: q.code,
          app_id: demo.app.app_id,
          app_secret: demo.app.app_secret,
          user_id: q.userId,
          code_verifier: verifier,
        },
      });
      const tokens: unknown = exchanged.json();
      if (!TokenAnswer.Check(tokens)) {
        return problem('The code was not accepted', `The token endpoint answered ${failureText(tokens)}.`);
      }
      const read = await app.inject({
        method: 'POST',
        url: `/openapi/user/info?user_id=${encodeURIComponent(q.userId)}`,
        headers: { access_token: tokens.data.access_token },
      });
      const user: unknown = read.json();
      if (!UserAnswer.Check(user)) {
        return problem('The user could not be read', `POST /openapi/user/info answered ${failureText(user)}.`);
      }
      return reply.headers(demoPageHeaders()).send(signedInPage(user.data));
    },
  );
}
