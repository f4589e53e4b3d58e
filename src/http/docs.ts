// OpenAPI 3.1 generated from the route schemas, served at /openapi.json, read at /docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
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
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
}
