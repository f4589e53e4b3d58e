import { apiErrors, Envelope, keyOnlySecurity, ok, signedOrKeySecurity } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { apiKeyAuth, credentialOf } from '../auth/hook.js';
import { FollowCheck, FollowersQuery, IsFollowQuery, PublicUser, UserIdQuery } from './schema.js';
import { Type } from 'typebox';

const tags = ['User information'];

export function userRoutes(app: App, s: Services): void {
  const successor = `<${s.config.publicUrl}/openapi/user/info>; rel="successor-version"`;
  app.get(
    '/openapi/user/info',
    {
      onRequest: apiKeyAuth(s.auth, true),
      schema: {
        tags,
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
        tags,
        summary: 'Basic information of a user (older key-only path)',
        security: keyOnlySecurity,
        querystring: UserIdQuery,
        response: { 200: Envelope(PublicUser), ...apiErrors },
      },
    },
    async (request) => ok(1, await s.users.publicInfo(request.query.user_id)),
  );

  app.get(
    '/openapi/user/followers',
    {
      onRequest: apiKeyAuth(s.auth, true),
      schema: {
        tags,
        summary: 'Followers of the user bound to the key (the bot itself, or the app owner), newest first',
        security: signedOrKeySecurity,
        querystring: FollowersQuery,
        response: { 200: Envelope(Type.Array(PublicUser)), ...apiErrors },
      },
    },
    async (request) => {
      const credential = credentialOf(request);
      const userId = credential.botUserId ?? credential.ownerUserId;
      return ok(1, await s.users.followers(userId, request.query.page, request.query.size));
    },
  );

  app.get(
    '/openapi/user/is_follow',
    {
      onRequest: apiKeyAuth(s.auth, true),
      schema: {
        tags,
        summary: 'Whether walletAddress follows followAddress',
        security: signedOrKeySecurity,
        querystring: IsFollowQuery,
        response: { 200: Envelope(FollowCheck), ...apiErrors },
      },
    },
    async (request) => {
      const q = request.query;
      return ok(1, { case3702: await s.users.isFollow(q.chain_id, q.walletAddress, q.followAddress) });
    },
  );
}
