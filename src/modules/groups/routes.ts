import { apiErrors, Envelope, ok, signedOrKeySecurity } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { apiKeyAuth } from '../auth/hook.js';
import { GroupInfo, GroupInfoQuery, IsJoinQuery, MembershipCheck } from './schema.js';

const tags = ['Group'];

export function groupRoutes(app: App, s: Services): void {
  const auth = apiKeyAuth(s.auth, true);
  app.get(
    '/openapi/group/info',
    {
      onRequest: auth,
      schema: {
        tags,
        summary: 'Information of the group behind a share URL',
        security: signedOrKeySecurity,
        querystring: GroupInfoQuery,
        response: { 200: Envelope(GroupInfo), ...apiErrors },
      },
    },
    async (request) => ok(200, await s.groups.info(request.query.group_invite_url)),
  );

  app.get(
    '/openapi/group/is_join',
    {
      onRequest: auth,
      schema: {
        tags,
        summary: 'Whether a wallet is a member of the group behind a share URL',
        security: signedOrKeySecurity,
        querystring: IsJoinQuery,
        response: { 200: Envelope(MembershipCheck), ...apiErrors },
      },
    },
    async (request) => {
      const q = request.query;
      return ok(200, { case3701: await s.groups.isMember(q.chain_id, q.walletAddress, q.url) });
    },
  );
}
