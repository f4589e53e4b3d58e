import { ok, readRoute } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { apiKeyAuth } from '../auth/index.js';
import { groupAddress } from './address.js';
import { GroupInfo, GroupInfoQuery, IsJoinQuery, MembershipCheck } from './schema.js';

const tags = ['Group'];

export function groupRoutes(app: App, s: Services): void {
  const auth = apiKeyAuth(s.auth, { signed: true, read: true });
  app.get(
    '/openapi/group/info',
    readRoute(auth, {
      tags,
      summary: 'Information of a group, by share URL or id',
      querystring: GroupInfoQuery,
      data: GroupInfo,
    }),
    async ({ query: q }) => ok(200, await s.groups.info(groupAddress('group_invite_url', q))),
  );
  app.get(
    '/openapi/group/is_join',
    readRoute(auth, {
      tags,
      summary: 'Whether a wallet is a member of a group (by share URL or id)',
      querystring: IsJoinQuery,
      data: MembershipCheck,
    }),
    async ({ query: q }) =>
      ok(200, {
        case3701: await s.groups.isMember(q.chain_id, q.walletAddress, groupAddress('url', q)),
      }),
  );
}
