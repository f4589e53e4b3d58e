import { apiErrors, Envelope, keyOnlySecurity, ok, signedOrKeySecurity } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { apiKeyAuth } from '../auth/hook.js';
import { PublicUser, UserIdQuery } from './schema.js';

export function userRoutes(app: App, s: Services): void {
  const successor = `<${s.config.publicUrl}/openapi/user/info>; rel="successor-version"`;
  app.get(
    '/openapi/user/info',
    {
      onRequest: apiKeyAuth(s.auth, true),
      schema: {
        tags: ['User information'],
        summary: 'Basic information of a user (signed or key-only; deprecated: use POST with a token)',
        deprecated: true,
        security: signedOrKeySecurity,
        querystring: UserIdQuery,
        response: { 200: Envelope(PublicUser), ...apiErrors },
      },
    },
    async (request, reply) => {
      const user = await s.users.publicInfo(request.query.user_id);
      void reply.header('deprecation', 'true').header('link', successor);
      return ok(1, user);
    },
  );

  app.get(
    '/openapi/authorize/userinfo',
    {
      onRequest: apiKeyAuth(s.auth, false),
      schema: {
        tags: ['User information'],
        summary: 'Basic information of a user (older key-only path)',
        security: keyOnlySecurity,
        querystring: UserIdQuery,
        response: { 200: Envelope(PublicUser), ...apiErrors },
      },
    },
    async (request) => ok(1, await s.users.publicInfo(request.query.user_id)),
  );
}
