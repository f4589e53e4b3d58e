// POST /openapi/payment/transfer: the app's server moves the points of an authorized payment.
import { apiErrors } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { TransferBody, TransferQuery, TransferResult } from './schema.js';

export function paymentRoutes(app: App, s: Services): void {
  app.post(
    '/openapi/payment/transfer',
    {
      schema: {
        tags: ['Authorized payment'],
        summary: 'Move the points of an authorized payment (once per serial)',
        querystring: TransferQuery,
        body: TransferBody,
        response: { 200: TransferResult, 401: apiErrors[401] },
      },
    },
    async (request) => s.payments.transfer({ ...request.query, ...request.body }),
  );
}
