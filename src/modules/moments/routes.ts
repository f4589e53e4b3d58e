import { apiErrors, Envelope, ok, signedOrKeySecurity } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { apiKeyAuth } from '../auth/hook.js';
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
  const auth = apiKeyAuth(s.auth, true);
  app.get(
    '/openapi/moment/praise_info',
    {
      onRequest: auth,
      schema: {
        tags,
        summary: 'Likes received and given by a wallet',
        security: signedOrKeySecurity,
        querystring: PraiseInfoQuery,
        response: { 200: Envelope(PraiseSummary), ...apiErrors },
      },
    },
    async (request) => ok(1, await s.moments.praiseInfo(request.query.chain_id, request.query.wallet_address)),
  );

  app.get(
    '/openapi/moment/give_praise',
    {
      onRequest: auth,
      schema: {
        tags,
        summary: 'Whether a wallet liked a moment',
        security: signedOrKeySecurity,
        querystring: GivePraiseQuery,
        response: { 200: Envelope(PraiseCheck), ...apiErrors },
      },
    },
    async (request) => {
      const q = request.query;
      return ok(1, await s.moments.givePraise(q.chain_id, q.wallet_address, q.moment_id));
    },
  );

  app.get(
    '/openapi/moment/receive_praise',
    {
      onRequest: auth,
      schema: {
        tags,
        summary: 'Likes of a moment and who gave them',
        security: signedOrKeySecurity,
        querystring: ReceivePraiseQuery,
        response: { 200: Envelope(MomentLikes), ...apiErrors },
      },
    },
    async (request) => {
      const q = request.query;
      return ok(1, await s.moments.receivePraise(q.moment_id, q.page, q.size));
    },
  );
}
