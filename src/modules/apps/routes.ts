import { Type } from 'typebox';
import { operatorErrors, strict } from '../../http/internal.js';
import { noStore } from '../../http/no-store.js';
import type { App } from '../../http/types.js';
import { DESCRIPTION_MAX, NAME_MAX, REDIRECT_URIS_MAX, URL_MAX } from '../../lib/input-rules.js';
import { Id } from '../../lib/schemas.js';
import type { Services } from '../../services.js';

// The shapes, for validation and /openapi.json; the service applies the rest of lib/input-rules.ts.
const Name = Type.String({ minLength: 1, maxLength: NAME_MAX });
const RedirectUri = Type.String({ pattern: '^https?://', maxLength: URL_MAX });

export function appRoutes(app: App, s: Services): void {
  app.post(
    '/internal/v1/apps',
    {
      onRequest: noStore,
      schema: {
        tags: ['Operator'],
        summary: 'Create an application for login and payment',
        body: Type.Object(
          { owner_user_id: Id, name: Name, redirect_uris: Type.Array(RedirectUri, { maxItems: REDIRECT_URIS_MAX }) },
          strict,
        ),
        response: {
          201: Type.Object({ app_id: Type.String(), api_key: Type.String(), app_secret: Type.String() }),
          ...operatorErrors,
        },
      },
    },
    async (request, reply) => reply.code(201).send(await s.apps.createApp(request.body)),
  );

  app.post(
    '/internal/v1/bots',
    {
      onRequest: noStore,
      schema: {
        tags: ['Operator'],
        summary: 'Create a bot (at most 5 per owner)',
        body: Type.Object(
          { owner_user_id: Id, name: Name, description: Type.Optional(Type.String({ maxLength: DESCRIPTION_MAX })) },
          strict,
        ),
        response: {
          201: Type.Object({
            bot_user_id: Type.String(),
            app_id: Type.String(),
            api_key: Type.String(),
            app_secret: Type.String(),
            evm_address: Type.String(),
            telegram_token: Type.String({ description: '<bot id>:<App Key>, the token Telegram libraries take' }),
          }),
          ...operatorErrors,
        },
      },
    },
    async (request, reply) => reply.code(201).send(await s.apps.createBot(request.body)),
  );
}
