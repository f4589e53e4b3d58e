import { ok, readRoute } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { apiKeyAuth } from '../auth/index.js';
import {
  GivePraiseQuery,
  MomentLikes,
  PraiseCheck,
  PraiseInfoQuery,
  PraiseSummary,
  ReceivePraiseQuery,
} from './schema.js';

const tags = ['Moment'];

export function momentRoutes(app: App, s: Services): void {
  const auth = apiKeyAuth(s.auth, { signed: true, read: true });
  app.get(
    '/openapi/moment/praise_info',
    readRoute(auth, {
      tags,
      summary: 'Likes received and given by a wallet',
      querystring: PraiseInfoQuery,
      data: PraiseSummary,
    }),
    async ({ query: q }) => ok(1, await s.moments.praiseInfo(q.chain_id, q.wallet_address)),
  );
  app.get(
    '/openapi/moment/give_praise',
    readRoute(auth, {
      tags,
      summary: 'Whether a wallet liked a moment',
      querystring: GivePraiseQuery,
      data: PraiseCheck,
    }),
    async ({ query: q }) => ok(1, await s.moments.givePraise(q.chain_id, q.wallet_address, q.moment_id)),
  );
  app.get(
    '/openapi/moment/receive_praise',
    readRoute(auth, {
      tags,
      summary: 'Likes of a moment and who gave them',
      querystring: ReceivePraiseQuery,
      data: MomentLikes,
    }),
    async ({ query: q }) => ok(1, await s.moments.receivePraise(q.moment_id, q.page, q.size)),
  );
}
