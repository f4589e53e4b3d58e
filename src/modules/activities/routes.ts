import type { TSchema } from 'typebox';
import { apiErrors, Envelope, ok, signedOrKeySecurity } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { apiKeyAuth } from '../auth/hook.js';
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

export function activityRoutes(app: App, s: Services): void {
  const auth = apiKeyAuth(s.auth, true);
  const spec = <Q extends TSchema, D extends TSchema>(summary: string, querystring: Q, data: D) => ({
    onRequest: auth,
    schema: {
      tags,
      summary,
      security: signedOrKeySecurity,
      querystring,
      response: { 200: Envelope(data), ...apiErrors },
    },
  });

  for (const path of ['/openapi/vote/info', '/openapi/behavior/vote']) {
    app.get(path, spec("Votes of a wallet in a group's votes", WalletInGroupQuery, VoteInfo), async (request) => {
      const q = request.query;
      return ok(200, await s.activities.votes(q.chain_id, q.wallet_address, q.group_invite_url));
    });
  }

  for (const path of ['/openapi/lucky_draw/info', '/openapi/behavior/lucky_draw']) {
    app.get(path, spec('Lucky draws of a wallet in a group', WalletInGroupQuery, LuckyDrawInfo), async (request) => {
      const q = request.query;
      return ok(1, await s.activities.luckyDraws(q.chain_id, q.wallet_address, q.group_invite_url));
    });
  }

  for (const path of ['/openapi/lucky_box/user', '/openapi/lucky_box/user222']) {
    app.get(path, spec('Lucky boxes sent and received by a wallet', WalletQuery, LuckyBoxOfWallet), async (request) =>
      ok(1, await s.activities.luckyBoxesOfWallet(request.query.chain_id, request.query.wallet_address)),
    );
  }

  app.get(
    '/openapi/lucky_box/user/group',
    spec('Lucky boxes a wallet received in a group', WalletInGroupQuery, LuckyBoxInGroup),
    async (request) => {
      const q = request.query;
      return ok(1, await s.activities.luckyBoxesInGroup(q.chain_id, q.wallet_address, q.group_invite_url));
    },
  );

  app.get(
    '/openapi/lucky_box/group',
    spec('Lucky boxes sent in a group', GroupQuery, LuckyBoxOfGroup),
    async (request) => ok(200, await s.activities.luckyBoxesOfGroup(request.query.group_invite_url)),
  );
}
