import type { TSchema } from 'typebox';
import { ok, readRoute } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { apiKeyAuth } from '../auth/index.js';
import { groupAddress } from '../groups/index.js';
import {
  GroupQuery,
  LuckyBoxInGroup,
  LuckyBoxOfGroup,
  LuckyBoxOfWallet,
  LuckyDrawInfo,
  VoteInfo,
  WalletInGroupQuery,
  WalletQuery,
} from './schema.js';

const tags = ['Votes, lucky draws, lucky box'];
const group = (q: { group_invite_url?: string; gid?: string }) =>
  groupAddress('group_invite_url', q.group_invite_url, q.gid);

export function activityRoutes(app: App, s: Services): void {
  const auth = apiKeyAuth(s.auth, { signed: true, read: true });
  const read = <Q extends TSchema, D extends TSchema>(summary: string, querystring: Q, data: D) =>
    readRoute(auth, { tags, summary, querystring, data });

  for (const path of ['/openapi/vote/info', '/openapi/behavior/vote']) {
    app.get(path, read('Votes of a wallet in a group', WalletInGroupQuery, VoteInfo), async ({ query: q }) =>
      ok(200, await s.activities.votes(q.chain_id, q.wallet_address, group(q))),
    );
  }
  for (const path of ['/openapi/lucky_draw/info', '/openapi/behavior/lucky_draw']) {
    app.get(path, read('Lucky draws of a wallet in a group', WalletInGroupQuery, LuckyDrawInfo), async ({ query: q }) =>
      ok(1, await s.activities.luckyDraws(q.chain_id, q.wallet_address, group(q))),
    );
  }
  for (const path of ['/openapi/lucky_box/user', '/openapi/lucky_box/user222']) {
    app.get(
      path,
      read('Lucky boxes sent and received by a wallet', WalletQuery, LuckyBoxOfWallet),
      async ({ query: q }) => ok(1, await s.activities.luckyBoxesOfWallet(q.chain_id, q.wallet_address)),
    );
  }
  app.get(
    '/openapi/lucky_box/user/group',
    read('Lucky boxes a wallet received in a group', WalletInGroupQuery, LuckyBoxInGroup),
    async ({ query: q }) => ok(1, await s.activities.luckyBoxesInGroup(q.chain_id, q.wallet_address, group(q))),
  );
  app.get(
    '/openapi/lucky_box/group',
    read('Lucky boxes sent in a group', GroupQuery, LuckyBoxOfGroup),
    async ({ query: q }) => ok(200, await s.activities.luckyBoxesOfGroup(group(q))),
  );
}
