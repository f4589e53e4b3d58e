// The demo's sign-in link: only its own secret path signs in, as the demo developer.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { buildApp } from '../app.js';
import { redactedUrl } from '../http/redact.js';
import type { App } from '../http/types.js';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { createUsers } from '../../test/helpers/factories.js';
import { demoSignIn } from './sign-in.js';

let t: TestApp;
let demo: App;
let path = '';
let developer = '';

before(async () => {
  t = await startTestApp('sqlite');
  [developer = ''] = (await createUsers(t.app, 1)).map((u) => u.user_id);
  demo = await buildApp(t.services, {
    extraRoutes: (a) => {
      path = demoSignIn(a, t.services, developer);
    },
  });
});
after(async () => {
  await demo.close();
  await t.close();
});

it('another path is 404 and signs nobody in', async () => {
  const res = await demo.inject({ method: 'GET', url: '/demo/sign-in/guess' });
  assert.equal(res.statusCode, 404);
  assert.equal(res.headers['set-cookie'], undefined);
});

it('the printed path sets a session cookie of the demo developer and opens the developer site', async () => {
  assert.match(path, /^\/demo\/sign-in\/[\w-]{43}$/);
  const res = await demo.inject({ method: 'GET', url: path });
  assert.equal(res.statusCode, 302);
  assert.equal(res.headers.location, '/developers/');
  const cookie = String(res.headers['set-cookie']);
  assert.match(cookie, /^op_session=[\w-]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/);
  const token = /^op_session=([\w-]+);/.exec(cookie)?.[1];
  assert.equal(await t.services.sessions.userOf(token), developer);
});

it('logs show the link without its secret', () => {
  assert.equal(redactedUrl(path), '/demo/sign-in/[redacted]');
  assert.equal(redactedUrl('/developers/bots/1?done=profile'), '/developers/bots/1?done=profile');
});
