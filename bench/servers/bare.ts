// The baseline: Fastify with one route answering a constant JSON object, nothing else.
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import type { ServerKind } from '../lib/types.js';

export const BARE_PATH = '/bare';

export const bareServer: ServerKind = {
  name: 'bare',
  async start() {
    const app = Fastify({ logger: false });
    const body = { code: 1, data: { hello: 'world' }, message: 'success', success: true };
    app.get(BARE_PATH, () => body);
    await app.listen({ host: '127.0.0.1', port: 0 });
    return {
      port: (app.server.address() as AddressInfo).port,
      info: null,
      notes: ['bare Fastify, logger off, one route returning a constant JSON object'],
      close: () => app.close(),
    };
  },
};
