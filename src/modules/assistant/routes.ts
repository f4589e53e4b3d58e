import { Type } from 'typebox';
import { operatorErrors } from '../../http/internal.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { ASSISTANT_NAME } from '../../db/migrations/0003_developers.js';

export function assistantRoutes(app: App, s: Services): void {
  app.get(
    '/internal/v1/assistant',
    {
      schema: {
        tags: ['Operator'],
        summary: "The bot-creation assistant's user id: private messages to it are commands",
        response: { 200: Type.Object({ user_id: Type.String(), name: Type.String() }), ...operatorErrors },
      },
    },
    () => ({ user_id: s.assistant.userId, name: ASSISTANT_NAME }),
  );
}
