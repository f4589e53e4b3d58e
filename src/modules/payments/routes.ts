import { Type } from 'typebox';
import { apiErrors } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';

const Text = Type.String({ minLength: 1, maxLength: 512 });

export function paymentRoutes(app: App, s: Services): void {
  app.post(
    '/openapi/payment/transfer',
    {
      schema: {
        tags: ['Authorized payment'],
        summary: 'Move the points of an authorized payment (once per serial)',
        querystring: Type.Object({ app_id: Text, app_secret: Text }),
        body: Type.Object({ access_token: Text, serial_id: Text }, { additionalProperties: false }),
        response: {
          200: Type.Object({ code: Type.String(), msg: Type.String(), source: Type.String() }),
          401: apiErrors[401],
        },
      },
    },
    async (request) => s.payments.transfer({ ...request.query, ...request.body }),
  );
}
