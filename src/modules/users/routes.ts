import type { onSendHookHandler } from 'fastify';
import { Type, type Static } from 'typebox';
import { keyOnlySecurity, ok, readRoute } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { apiKeyAuth, credentialOf } from '../auth/index.js';
import { exactlyOne } from './alternative.js';
import { FollowCheck, FollowersQuery, IsFollowQuery, PublicUser, UserInfoQuery } from './schema.js';
import type { UserRef } from './service.js';

const tags = ['User information'];

/** Who GET user/info asks about: `user_id`, or a wallet `address` on `chain_id` (decisions.md section 7). */
function userRef(q: Static<typeof UserInfoQuery>): UserRef {
  const given = exactlyOne(['user_id', q.user_id], ['address', q.address]);
  return given.field === 'user_id' ? { userId: given.value } : { chainId: q.chain_id, address: given.value };
}

export function userRoutes(app: App, s: Services): void {
  const signedAuth = apiKeyAuth(s.auth, { signed: true, read: true });
  const successorHeaders = {
    deprecation: 'true',
    link: `<${s.config.publicUrl}/openapi/user/info>; rel="successor-version"`,
  };
  // On sending, so that every answer carries them, refusals too, even those of the hooks that run
  // before this route's own (decisions.md section 6).
  const announceSuccessor: onSendHookHandler = (_request, reply, payload, done) => {
    void reply.headers(successorHeaders);
    done(null, payload);
  };
  app.get(
    '/openapi/user/info',
    {
      ...readRoute(signedAuth, {
        tags,
        summary: 'Basic information of a user (signed or key-only; deprecated: use POST with a token)',
        deprecated: true,
        querystring: UserInfoQuery,
        data: PublicUser,
      }),
      onSend: announceSuccessor,
    },
    (request) => {
      // Synchronous when the profile is cached: no promise (and no closure) between query and answer.
      const user = s.users.publicInfo(userRef(request.query));
      return user instanceof Promise ? user.then((read) => ok(1, read)) : ok(1, user);
    },
  );

  app.get(
    '/openapi/authorize/userinfo',
    readRoute(apiKeyAuth(s.auth, { signed: false, read: true }), {
      tags,
      summary: 'Basic information of a user (older key-only path)',
      security: keyOnlySecurity,
      querystring: UserInfoQuery,
      data: PublicUser,
    }),
    async ({ query: q }) => ok(1, await s.users.publicInfo(userRef(q))),
  );

  app.get(
    '/openapi/user/followers',
    readRoute(signedAuth, {
      tags,
      summary: 'Followers of the user bound to the key (the bot itself, or the app owner), newest first',
      querystring: FollowersQuery,
      data: Type.Array(PublicUser),
    }),
    async (request) => {
      const credential = credentialOf(request);
      const userId = credential.botUserId ?? credential.ownerUserId;
      return ok(1, await s.users.followers(userId, request.query.page, request.query.size));
    },
  );

  app.get(
    '/openapi/user/is_follow',
    readRoute(signedAuth, {
      tags,
      summary: 'Whether walletAddress follows followAddress',
      querystring: IsFollowQuery,
      data: FollowCheck,
    }),
    async ({ query: q }) => ok(1, { case3702: await s.users.isFollow(q.chain_id, q.walletAddress, q.followAddress) }),
  );
}
