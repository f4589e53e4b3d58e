import { Type } from 'typebox';
import { operatorErrors } from '../../http/internal.js';
import type { App } from '../../http/types.js';
import { Id } from '../../lib/schemas.js';
import type { Services } from '../../services.js';

export function pointRoutes(app: App, s: Services): void {
  app.get(
    '/internal/v1/users/:user_id/balance',
    {
      schema: {
        tags: ['Operator'],
        summary: "A user's balance of points",
        params: Type.Object({ user_id: Id }),
        response: { 200: Type.Object({ user_id: Type.String(), balance: Type.String() }), ...operatorErrors },
      },
    },
    async (request) => s.points.balance(request.params.user_id),
  );
}
