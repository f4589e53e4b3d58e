// A trace-level log never holds a secret, however its name is spelled (percent-encoded, upper
// case, '-' for '_') and whichever surface carried it: query string, form body, JSON body, headers.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { buildApp } from '../src/app.js';
import { redactedUrl, redactingLogOptions } from '../src/http/redact.js';
import type { App } from '../src/http/types.js';
import { startTestApp, type TestApp } from './helpers/app.js';

const secret = (n: number): string => `s3cr3t-value-${n}-${'z'.repeat(8)}`;
const lines: string[] = [];
let t: TestApp;
let logged: App;

before(async () => {
  t = await startTestApp('sqlite');
  logged = await buildApp(t.services, {
    logger: { level: 'trace', stream: { write: (line: string) => lines.push(line) }, ...redactingLogOptions },
    // A handler that logs what it received, as code under debugging would.
    extraRoutes: (a) => {
      a.post('/echo', { schema: { hide: true } }, (request, reply) => {
        request.log.trace({ req: request, query: request.query, body: request.body, headers: request.headers }, 'echo');
        return reply.send({ ok: true });
      });
    },
  });
});
after(async () => {
  await logged.close();
  await t.close();
});

it('masks encoded secret names in request URLs', async () => {
  lines.length = 0;
  const res = await logged.inject({
    method: 'GET',
    url: `/openapi/oauth2/access_token?grant_type=authorization_code&user_id=1&app_id=app_1&app%5Fsecret=${secret(1)}&%63ode=${secret(2)}&ACCESS%5FTOKEN=${secret(3)}&refresh-token=${secret(4)}&code%5Fverifier=${secret(9)}`,
  });
  // The decoded names were accepted: the exchange got as far as refusing the unknown app.
  assert.equal(res.statusCode, 401, res.body);
  assert.deepEqual(res.json(), { code: 401, data: null, message: 'Bad Request', success: false });
  const all = lines.join('\n');
  assert.ok(all.includes('app%5Fsecret=[redacted]'), `request not logged with the secret masked:\n${all}`);
  for (const n of [1, 2, 3, 4, 9]) assert.ok(!all.includes(secret(n)), `secret ${n} in the log:\n${all}`);
});

it('masks the App Key of a Telegram bot token in the path, keeping the bot id', async () => {
  lines.length = 0;
  const res = await logged.inject({ method: 'GET', url: `/telegram/bot1000003:${secret(5)}/getMe?x=1` });
  assert.equal(res.statusCode, 401, res.body);
  const all = lines.join('\n');
  assert.ok(all.includes('"/telegram/bot1000003:[redacted]/getMe?x=1"'), `request not logged masked:\n${all}`);
  assert.ok(!all.includes(secret(5)), `the App Key in the log:\n${all}`);
  // A path too long to route is refused without repeating it.
  const long = await logged.inject({ method: 'GET', url: `/telegram/bot1000003:${secret(8)}/${'a'.repeat(5000)}` });
  assert.equal(long.statusCode, 400);
  assert.deepEqual(long.json(), {
    ok: false,
    error_code: 400,
    description: 'Bad Request: url: a path segment is too long',
  });
  assert.deepEqual(
    [`/telegram/bot${secret(6)}/getMe`, `/telegram/%62ot1:${secret(7)}/x`, '/telegram/bot1:/getMe'].map(redactedUrl),
    ['/telegram/bot[redacted]/getMe', '/telegram/[redacted]/x', '/telegram/bot1:[redacted]/getMe'],
  );
});

it('masks secrets in form bodies, JSON bodies and headers that a handler logs', async () => {
  lines.length = 0;
  const headers = {
    'x-api-key': secret(10),
    authorization: `Bearer ${secret(11)}`,
    cookie: `op_session=${secret(12)}`,
    signature: secret(13),
    access_token: secret(14),
    'X-Telegram-Bot-Api-Secret-Token': secret(15),
  };
  const form = await logged.inject({
    method: 'POST',
    url: `/echo?%61pp_secret=${secret(20)}`,
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `app%5Fsecret=${secret(21)}&%63ode=${secret(22)}&Refresh_Token=${secret(23)}&user_id=1`,
  });
  assert.equal(form.statusCode, 200, form.body);
  const json = await logged.inject({
    method: 'POST',
    url: '/echo',
    headers,
    payload: { app_secret: secret(30), nested: [{ 'client-secret': secret(31), webhook_key: secret(32) }] },
  });
  assert.equal(json.statusCode, 200, json.body);
  const all = lines.join('\n');
  assert.equal(lines.filter((l) => l.includes('"msg":"echo"')).length, 2, `handler records missing:\n${all}`);
  assert.ok(all.includes('"user_id":"1"'), 'ordinary fields are kept');
  for (const n of [10, 11, 12, 13, 14, 15, 20, 21, 22, 23, 30, 31, 32]) {
    assert.ok(!all.includes(secret(n)), `secret ${n} in the log:\n${all}`);
  }
});
