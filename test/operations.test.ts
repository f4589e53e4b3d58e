// Operations endpoints in-process: readiness, /metrics behind METRICS_TOKEN, and error answers
// counted by surface and id (the bot surface answers most errors with HTTP 200).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeStores, type TestApp } from './helpers/app.js';

const TOKEN = 'metrics-token-0123456789';
const metrics = (t: TestApp, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: '/metrics', headers });

await describeStores('operations: readiness', (t) => {
  it('GET /readyz is 200 ready while the database answers, 503 naming it once it does not', async () => {
    const ready = await t().app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ready' });
    const live = await t().app.inject({ method: 'GET', url: '/healthz' });
    assert.deepEqual([live.statusCode, live.json()], [200, { status: 'ok' }]);

    await t().services.db.close();
    const down = await t().app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(down.statusCode, 503);
    assert.deepEqual(down.json(), { status: 'degraded', down: ['database'] });
    const stillLive = await t().app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(stillLive.statusCode, 200, 'liveness does not depend on the database');
  });
});

await describeStores(
  'operations: /metrics with METRICS_TOKEN',
  (t) => {
    it('answers only the bearer token: 401 without it or with another', async () => {
      const refused: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-token' }, { authorization: TOKEN }];
      for (const headers of refused) {
        const res = await metrics(t(), headers);
        assert.equal(res.statusCode, 401, JSON.stringify(headers));
        assert.deepEqual(res.json(), { error: 'unauthorized', message: 'missing or wrong bearer token' });
        assert.equal(res.headers['www-authenticate'], 'Bearer realm="metrics"');
      }
      const res = await metrics(t(), { authorization: `Bearer ${TOKEN}` });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/plain/);
      assert.match(res.body, /^# HELP /m);
    });

    it('counts error answers by surface and id, the bot surface (HTTP 200) included', async () => {
      const count = async (surface: string, error: string) => {
        const res = await metrics(t(), { authorization: `Bearer ${TOKEN}` });
        const line = new RegExp(`^http_errors_total\\{surface="${surface}",error="${error}"\\} (\\d+)$`, 'm').exec(
          res.body,
        );
        return Number(line?.[1] ?? 0);
      };
      const before = [await count('bot', 'api_key_unavailable'), await count('internal', 'unauthorized')];
      const bot = await t().app.inject({ method: 'POST', url: '/openapi/bot/getMe', headers: { 'x-api-key': 'nope' } });
      assert.equal(bot.statusCode, 200, 'bot errors keep their HTTP 200');
      assert.equal(bot.json<{ ok: boolean }>().ok, false);
      await t().app.inject({ method: 'POST', url: '/openapi/bot/noSuchMethod', headers: { 'x-api-key': 'nope' } });
      await t().app.inject({ method: 'POST', url: '/internal/v1/apps', payload: {} });
      await metrics(t());
      assert.deepEqual(
        [await count('bot', 'api_key_unavailable'), await count('internal', 'unauthorized')],
        [(before[0] ?? 0) + 1, (before[1] ?? 0) + 2],
      );
      assert.equal(await count('bot', 'not_found'), 1, 'an unknown bot method');
      const res = await metrics(t(), { authorization: `Bearer ${TOKEN}` });
      assert.doesNotMatch(res.body, /^redis_up /m, 'no redis_up without REDIS_URL');
    });
  },
  { env: { METRICS_TOKEN: TOKEN } },
);

await describeStores('operations: /metrics without METRICS_TOKEN', (t) => {
  it('stays open, as before', async () => {
    const res = await metrics(t());
    assert.equal(res.statusCode, 200);
  });
});
