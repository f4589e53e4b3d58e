import { Type } from 'typebox';
import { operatorErrors, strict } from '../../http/internal.js';
import { noStore } from '../../http/no-store.js';
import type { App } from '../../http/types.js';
import { DESCRIPTION_MAX, NAME_MAX, REDIRECT_URIS_MAX, URL_MAX } from '../../lib/input-rules.js';
import { Id } from '../../lib/schemas.js';
import type { Services } from '../../services.js';

// The types, for validation and /openapi.json. Lengths, schemes and counts are lib/input-rules.ts's,
// applied by the service after trimming and removing repeats, as for the CLI and the developer
// site: a limit here would see the text before that and refuse what they accept (a name padded
// with spaces past 64 characters, " https://a/cb"). The bounds here are 16 times those, so what no
// rule could accept is refused before the service waits for a writer.
const Name = Type.String({ maxLength: NAME_MAX * 16, description: `trimmed, 1 to ${NAME_MAX} characters on one line` });
const RedirectUri = Type.String({
  maxLength: URL_MAX * 16,
  description: `trimmed, starting https:// or http:// (in lower case), without a fragment, at most ${URL_MAX} bytes`,
});
const RedirectUris = Type.Array(RedirectUri, {
  maxItems: REDIRECT_URIS_MAX * 16,
  description: `at most ${REDIRECT_URIS_MAX}, repeats removed`,
});
const Description = Type.String({
  maxLength: DESCRIPTION_MAX * 16,
  description: `trimmed, at most ${DESCRIPTION_MAX} characters`,
});

export function appRoutes(app: App, s: Services): void {
  app.post(
    '/internal/v1/apps',
    {
      onRequest: noStore,
      schema: {
        tags: ['Operator'],
        summary: 'Create an application for login and payment',
        body: Type.Object({ owner_user_id: Id, name: Name, redirect_uris: RedirectUris }, strict),
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
        body: Type.Object({ owner_user_id: Id, name: Name, description: Type.Optional(Description) }, strict),
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
