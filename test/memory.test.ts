// Memory a caller without credentials can make the server keep: 20,000 requests, each with a
// different unknown 14 KB App Key, must leave the heap (after a full GC) within a fixed bound.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestApp, type TestApp } from './helpers/app.js';
import { createApp, createUsers, type TestUser } from './helpers/factories.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const REQUESTS = 20_000;
const KEY_BYTES = 14 * 1024;
const BOUND_BYTES = 16 * 1024 * 1024;

let t: TestApp;
let user: TestUser;

before(async () => {
  t = await startTestApp('sqlite');
  [user] = (await createUsers(t.app, 1)) as [TestUser];
});
after(async () => t.close());

/**
 * Heap in use after full collections, each followed by a turn of the event loop: the last
 * requests' objects are released only once their callbacks have run.
 */
const settledHeap = async (): Promise<number> => {
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
};

const unknownKeys = async (n: number, bytes: number): Promise<void> => {
  // One random prefix per key and a shared filler: each key is distinct, building them is cheap.
  const filler = 'k'.repeat(bytes - 32);
  for (let i = 0; i < n; i++) {
    const res = await t.app.inject({
      method: 'GET',
      url: `/openapi/authorize/userinfo?user_id=${user.user_id}`,
      headers: { 'x-api-key': `${randomBytes(16).toString('hex')}${filler}` },
    });
    assert.equal(res.statusCode, 400, res.body);
  }
};

it(`${REQUESTS} unknown ${KEY_BYTES / 1024} KB keys leave the heap within ${BOUND_BYTES / 2 ** 20} MiB`, async () => {
  // Warm up first, so lazy initialisation and compiled code are not counted as growth.
  await unknownKeys(500, KEY_BYTES);
  const before = await settledHeap();
  await unknownKeys(REQUESTS, KEY_BYTES);
  const grown = (await settledHeap()) - before;
  assert.ok(grown < BOUND_BYTES, `heap grew by ${(grown / 2 ** 20).toFixed(1)} MiB`);
});

it('a valid key still works after the flood, and an issued-length unknown key is refused', async () => {
  const creds = await createApp(t.app, user.user_id);
  const call = (key: string) =>
    t.app.inject({
      method: 'GET',
      url: `/openapi/authorize/userinfo?user_id=${user.user_id}`,
      headers: { 'x-api-key': key },
    });
  assert.equal((await call(creds.api_key)).statusCode, 200);
  const wrong = await call(`${creds.api_key.slice(0, -1)}${creds.api_key.endsWith('A') ? 'B' : 'A'}`);
  assert.equal(wrong.statusCode, 400);
  assert.deepEqual(wrong.json(), { error: 'Bad Request', code: 400, message: 'You X-API-KEY is not available' });
});
