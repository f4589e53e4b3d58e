// OpenAPI 3.1 generated from the route schemas, served at /openapi.json, read at /docs (rendered
// on the server from the same document).
import swagger from '@fastify/swagger';
import { docsPage } from './docs-page.js';
import { finishDocument, finishRoute } from './openapi-finish.js';
import type { App } from './types.js';

const header = (name: string, description: string) => ({
  type: 'apiKey' as const,
  in: 'header' as const,
  name,
  description,
});

export async function registerDocs(app: App, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Open Platform API',
        version: '1.0.0',
        description:
          'Messaging, profiles, community statistics, OAuth 2.0 login and payments for third-party developers and bots. ' +
          'Signed calls carry app_id, X-API-KEY, nonce, timestamp and signature = hex SHA1(App Secret + nonce + timestamp).',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          apiKey: header('X-API-KEY', 'App Key from the developer site'),
          appId: header('app_id', 'Application id (signed generation)'),
          nonce: header('nonce', '1 to 32 letters or digits (signed generation)'),
          timestamp: header('timestamp', 'Unix time in ms (13 digits) or s (10 digits), within 300 s'),
          signature: header('signature', 'hex SHA1 of App Secret + nonce + timestamp'),
          operator: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN (operator surface)' },
          accessToken: header('access_token', 'Access token from the login flow (Token header set)'),
          accessTokenBearer: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description:
              'The same access token as Authorization: Bearer (RFC 6750 section 2.1), on the Token-header endpoints',
          },
          appIdQuery: { type: 'apiKey', in: 'query', name: 'app_id', description: 'Application id' },
          appSecret: { type: 'apiKey', in: 'query', name: 'app_secret', description: 'App Secret of that application' },
          clientBasic: {
            type: 'http',
            scheme: 'basic',
            description:
              'app_id and app_secret as HTTP Basic credentials, each form-urlencoded (RFC 6749 section 2.3.1)',
          },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'op_session',
            description: 'The signed-in user, set by the community application (operator sessions)',
          },
        },
      },
    },
    transform: ({ schema, url }) => ({ schema: finishRoute(schema, url), url }),
    transformObject: (documentObject) =>
      'openapiObject' in documentObject ? finishDocument(documentObject.openapiObject) : documentObject.swaggerObject,
  });
  // The document is fixed once the app is ready, so it is written out once, and the page rendered
  // once: each answer then shares one string instead of holding its own copy (360 KB) until sent.
  let json: string | undefined;
  app.get('/openapi.json', { schema: { hide: true } }, (_request, reply) => {
    json ??= JSON.stringify(app.swagger());
    return reply.type('application/json; charset=utf-8').send(json);
  });
  let page: ReturnType<typeof docsPage> | undefined;
  for (const path of ['/docs', '/docs/']) {
    app.get(path, { schema: { hide: true } }, (_request, reply) => {
      page ??= docsPage(app.swagger());
      return reply.headers(page.headers).send(page.body);
    });
  }
}
