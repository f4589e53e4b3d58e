// With --demo only: a sign-in link for the demo developer, so a newcomer can open the developer
// site in an ordinary browser. In production the application sets the session cookie itself
// (POST /internal/v1/sessions); this link stands in for that, guarded by a random path shown once
// on the terminal. It works once, within SIGN_IN_LINK_TTL_MS of the start: a copy left in a
// scrollback or a screen recording is worth nothing afterwards.
import { Type } from 'typebox';
import type { App } from '../http/types.js';
import { newSecretToken } from '../lib/ids.js';
import { safeEqual } from '../lib/crypto.js';
import { SESSION_TTL_MS } from '../modules/sessions/index.js';
import type { Services } from '../services.js';

export const SIGN_IN_LINK_TTL_MS = 15 * 60 * 1000;

/** Registers the link; answers its path. */
export function demoSignIn(app: App, s: Services, userId: string): string {
  const secret = newSecretToken();
  const expiresAt = s.clock.now() + SIGN_IN_LINK_TTL_MS;
  let used = false;
  app.get(
    '/demo/sign-in/:secret',
    {
      schema: {
        hide: true,
        params: Type.Object({ secret: Type.String({ maxLength: 128 }) }),
        response: { 302: Type.Null(), 404: Type.Null() },
      },
    },
    async (request, reply) => {
      const live = !used && s.clock.now() < expiresAt;
      if (!live || !safeEqual(request.params.secret, secret)) return reply.code(404).send(null);
      // Taken before the await, so two racing requests cannot both sign in.
      used = true;
      const { cookie } = await s.sessions.create(userId);
      const secure = s.config.publicUrl.startsWith('https://') ? '; Secure' : '';
      return reply
        .header('set-cookie', `${cookie}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_TTL_MS / 1000}${secure}`)
        .redirect('/developers/', 302);
    },
  );
  return `/demo/sign-in/${secret}`;
}
