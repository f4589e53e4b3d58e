import type { TSchema } from 'typebox';
import { keyOnlySecurity, ok, readRoute } from '../../http/envelope.js';
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
const group = (q: Parameters<typeof groupAddress>[1]) => groupAddress('group_invite_url', q);

export function activityRoutes(app: App, s: Services): void {
  const signedAuth = apiKeyAuth(s.auth, { signed: true, read: true });
  const read = <Q extends TSchema, D extends TSchema>(summary: string, querystring: Q, data: D) =>
    readRoute(signedAuth, { tags, summary, querystring, data });
  // seed-api.md Versioning: the older paths belong to the key-only generation, so a deployment that
  // requires signing (REQUIRE_SIGNED) still answers them with the key alone.
  const keyOnlyAuth = apiKeyAuth(s.auth, { signed: false, read: true });
  const older = <Q extends TSchema, D extends TSchema>(summary: string, querystring: Q, data: D) =>
    readRoute(keyOnlyAuth, {
      tags,
      summary: `${summary} (older key-only path)`,
      security: keyOnlySecurity,
      querystring,
      data,
    });

  for (const [path, route] of [
    ['/openapi/vote/info', read],
    ['/openapi/behavior/vote', older],
  ] as const) {
    app.get(path, route('Votes of a wallet in a group', WalletInGroupQuery, VoteInfo), async ({ query: q }) =>
      ok(200, await s.activities.votes(q.chain_id, q.wallet_address, group(q))),
    );
  }
  for (const [path, route] of [
    ['/openapi/lucky_draw/info', read],
    ['/openapi/behavior/lucky_draw', older],
  ] as const) {
    app.get(
      path,
      route('Lucky draws of a wallet in a group', WalletInGroupQuery, LuckyDrawInfo),
      async ({ query: q }) => ok(1, await s.activities.luckyDraws(q.chain_id, q.wallet_address, group(q))),
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
