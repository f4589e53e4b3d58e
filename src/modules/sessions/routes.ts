import { Type } from 'typebox';
import { operatorErrors, strict } from '../../http/internal.js';
import { noStore } from '../../http/no-store.js';
import type { App } from '../../http/types.js';
import { Id } from '../../lib/schemas.js';
import type { Services } from '../../services.js';

export function sessionRoutes(app: App, s: Services): void {
  app.post(
    '/internal/v1/sessions',
    {
      onRequest: noStore,
      schema: {
        tags: ['Operator'],
        summary: 'Sign a user in to the authorize page and the developer site',
        body: Type.Object({ user_id: Id }, strict),
        response: { 200: Type.Object({ cookie: Type.String(), expires_at: Type.String() }), ...operatorErrors },
      },
    },
    async (request) => s.sessions.create(request.body.user_id),
  );
}
