// How the server listens: on HOST:PORT with a connection backlog large enough for every polling bot
// reconnecting at once after a restart (Node's default of 511 overflowed with 10,000 polls, and
// each dropped handshake waits seconds for its client's retry).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listen } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';

describe('listen', () => {
  it('asks for a backlog of 4096 connections on HOST:PORT', async () => {
    const seen: unknown[] = [];
    const app = {
      listen: (options: { port: number; host: string; backlog: number }) => {
        seen.push(options);
        return Promise.resolve('http://127.0.0.1:8123');
      },
      log: { info: () => undefined },
    };
    const address = await listen(app, loadConfig({ PORT: '8123', HOST: '127.0.0.1' }));
    assert.equal(address, 'http://127.0.0.1:8123');
    assert.deepEqual(seen, [{ port: 8123, host: '127.0.0.1', backlog: 4096 }]);
  });

  it('once listening, logs the Redis in use, its password masked, and its REDIS_PREFIX; nothing without Redis', async () => {
    const logged: unknown[] = [];
    const app = {
      listen: () => Promise.resolve('http://127.0.0.1:8123'),
      log: { info: (fields: object, message: string) => logged.push({ fields, message }) },
    };
    await listen(app, loadConfig({ REDIS_URL: 'redis://:S3cret@redis.internal:6379/0', REDIS_PREFIX: 'prod:' }));
    assert.deepEqual(logged, [
      {
        fields: { redis: 'redis://:***@redis.internal:6379/0', redisPrefix: 'prod:' },
        message: 'shared state in Redis under REDIS_PREFIX "prod:": every instance of this platform must use the same',
      },
    ]);
    assert.ok(!JSON.stringify(logged).includes('S3cret'), 'the password is not logged');
    logged.length = 0;
    await listen(app, loadConfig({}));
    assert.deepEqual(logged, []);
  });
});
