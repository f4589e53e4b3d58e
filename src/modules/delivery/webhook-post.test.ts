// Webhook HTTP: the Standard Webhooks signature and single delivery attempts against local
// servers on 127.0.0.1.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { TELEGRAM_BODY_LIMIT } from '../../http/body.js';
import { postWebhook, webhookHeaders, WEBHOOK_TIMEOUT_MS } from './webhook-post.js';
import { INSECURE_REFUSED } from './webhook-url.js';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0) + 789;
// Keys travel in X-API-KEY, so they are ASCII; the signature test below also covers a non-ASCII key.
const KEY = 'whk_3f9a1c7e5b2d4f60';
const UNICODE_KEY = 'whk_secret_Ünïcode';

interface Received {
  method: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A server on 127.0.0.1 that answers with `respond` and records what it received. */
async function withServer(
  respond: (req: IncomingMessage, res: ServerResponse) => void,
  run: (url: string, received: Received[], connections: () => number) => Promise<void>,
): Promise<void> {
  const received: Received[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      respond(req, res);
    });
  });
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  const { port } = address;
  try {
    await run(`http://127.0.0.1:${port}/hook?x=1`, received, () => connections);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
  }
}

const ATTEMPT = { key: KEY, id: 'upd_1', body: '{"a":1}', now: NOW };
const post = (url: string, extra: { allowInsecure?: boolean; timeoutMs?: number; keepBody?: boolean } = {}) =>
  postWebhook({ ...ATTEMPT, url, allowInsecure: true, ...extra });

describe('webhookHeaders', () => {
  it('signs "{id}.{timestamp}.{body}" with HMAC-SHA256 keyed by the UTF-8 key', () => {
    const body = '{"text":"héllo"}';
    const h = webhookHeaders('upd_42', 1767268800, body, UNICODE_KEY);
    assert.equal(h['Content-Type'], 'application/json');
    assert.equal(h['X-API-KEY'], UNICODE_KEY);
    assert.equal(h['webhook-id'], 'upd_42');
    assert.equal(h['webhook-timestamp'], '1767268800');
    const expected = createHmac('sha256', Buffer.from(UNICODE_KEY, 'utf8'))
      .update(Buffer.from(`upd_42.1767268800.${body}`, 'utf8'))
      .digest('base64');
    assert.equal(h['webhook-signature'], `v1,${expected}`);
  });

  it('matches a fixed vector', () => {
    // Computed with: printf '%s' 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W.1674087231.{"test": 2432232314}'
    //   | openssl dgst -sha256 -hmac 'whk_test_key' -binary | base64
    const h = webhookHeaders('msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', 1674087231, '{"test": 2432232314}', 'whk_test_key');
    assert.equal(h['webhook-signature'], 'v1,6dBuD3A7lGVsjrxUJU3KyxPlnUFGeTRo88oKRuiIlRI=');
  });
});

describe('postWebhook', () => {
  it('uses a 10 s timeout by default', () => {
    assert.equal(WEBHOOK_TIMEOUT_MS, 10_000);
  });

  it('delivers on 200 with the signed headers and the exact body', async () => {
    await withServer(
      (_req, res) => res.end('thanks'),
      async (url, received) => {
        const body = '{"update_id":"upd_1","text":"héllo ✓"}';
        const attempt = await postWebhook({ url, key: KEY, id: 'upd_1', body, allowInsecure: true, now: NOW });
        assert.equal(attempt.ok, true);
        assert.equal(attempt.status, 200);
        assert.equal(attempt.error, null);
        assert.equal(attempt.retryAfterMs, null);
        assert.ok(attempt.durationMs >= 0, 'attempt.durationMs >= 0');

        assert.equal(received.length, 1);
        const got = received[0];
        assert.ok(got, 'got');
        assert.equal(got.method, 'POST');
        assert.equal(got.body, body);
        assert.equal(got.headers['content-type'], 'application/json');
        assert.equal(got.headers['x-api-key'], KEY);
        assert.equal(got.headers['webhook-id'], 'upd_1');
        const timestamp = String(Math.floor(NOW / 1000));
        assert.equal(got.headers['webhook-timestamp'], timestamp);
        const signature = createHmac('sha256', Buffer.from(KEY, 'utf8'))
          .update(`upd_1.${timestamp}.${body}`)
          .digest('base64');
        assert.equal(got.headers['webhook-signature'], `v1,${signature}`);
      },
    );
  });

  it('treats any 2xx as delivered and caps the response body it reads', async () => {
    await withServer(
      (_req, res) => {
        res.statusCode = 204;
        res.end();
      },
      async (url) => {
        const attempt = await post(url);
        assert.equal(attempt.ok, true);
        assert.equal(attempt.status, 204);
      },
    );
    await withServer(
      (_req, res) => {
        res.statusCode = 202;
        res.end(Buffer.alloc(4 * 1024 * 1024, 'x'));
      },
      async (url) => {
        const attempt = await post(url);
        assert.equal(attempt.ok, true);
        assert.equal(attempt.status, 202);
      },
    );
  });

  it('keeps an answer only when it arrived whole within 256 KiB; its status counts either way', async () => {
    const kept = async (respond: (res: ServerResponse) => void, timeoutMs?: number) => {
      let attempt: Awaited<ReturnType<typeof postWebhook>> | undefined;
      await withServer(
        (_req, res) => {
          respond(res);
        },
        async (url) => {
          attempt = await post(url, { keepBody: true, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
        },
      );
      return { ok: attempt?.ok, status: attempt?.status, error: attempt?.error, bytes: attempt?.body?.length };
    };
    /** Declares 100 bytes, sends 10, then `then`. */
    const part = (then: (res: ServerResponse) => void) => (res: ServerResponse) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('x'.repeat(10), () => {
        then(res);
      });
    };
    const delivered = { ok: true, status: 200, error: null };
    assert.deepEqual(await kept((res) => res.end(Buffer.alloc(TELEGRAM_BODY_LIMIT, 'x'))), {
      ...delivered,
      bytes: TELEGRAM_BODY_LIMIT,
    });
    assert.deepEqual(await kept((res) => res.end(Buffer.alloc(TELEGRAM_BODY_LIMIT + 1, 'x'))), {
      ...delivered,
      bytes: undefined,
    });
    // Dropped part-way, and stalled until the timeout.
    assert.deepEqual(await kept(part((res) => res.destroy())), { ...delivered, bytes: undefined });
    assert.deepEqual(
      await kept(
        part(() => undefined),
        200,
      ),
      { ...delivered, bytes: undefined },
    );
  });

  it('fails on 500 with "HTTP 500"', async () => {
    await withServer(
      (_req, res) => {
        res.statusCode = 500;
        res.end('boom');
      },
      async (url) => {
        const attempt = await post(url);
        assert.equal(attempt.ok, false);
        assert.equal(attempt.status, 500);
        assert.equal(attempt.error, 'HTTP 500');
        assert.equal(attempt.retryAfterMs, null);
      },
    );
  });

  it('reads Retry-After in seconds', async () => {
    await withServer(
      (_req, res) => {
        res.writeHead(503, { 'Retry-After': '7' });
        res.end();
      },
      async (url) => {
        const attempt = await post(url);
        assert.equal(attempt.ok, false);
        assert.equal(attempt.status, 503);
        assert.equal(attempt.error, 'HTTP 503');
        assert.equal(attempt.retryAfterMs, 7000);
      },
    );
  });

  it('reads a Retry-After of any size as at most a day (a finite, small number)', async () => {
    for (const header of ['9'.repeat(20), '9'.repeat(400), new Date(8.64e15).toUTCString()]) {
      await withServer(
        (_req, res) => {
          res.writeHead(503, { 'Retry-After': header });
          res.end();
        },
        async (url) => {
          assert.equal((await post(url)).retryAfterMs, 24 * 3600 * 1000, header);
        },
      );
    }
  });

  it('reads Retry-After as an HTTP date relative to now', async () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    await withServer(
      (_req, res) => {
        res.writeHead(429, { 'Retry-After': new Date(now + 30_000).toUTCString() });
        res.end();
      },
      async (url) => {
        const attempt = await postWebhook({ url, key: KEY, id: 'u', body: '{}', allowInsecure: true, now });
        assert.equal(attempt.status, 429);
        assert.equal(attempt.retryAfterMs, 30_000);
      },
    );
  });

  it('does not follow a 302', async () => {
    await withServer(
      (_req, res) => {
        res.writeHead(302, { Location: 'http://127.0.0.1:1/elsewhere' });
        res.end();
      },
      async (url, received) => {
        const attempt = await post(url);
        assert.equal(attempt.ok, false);
        assert.equal(attempt.status, 302);
        assert.match(attempt.error ?? '', /^HTTP 302/);
        assert.equal(received.length, 1);
      },
    );
  });

  it('fails on a refused connection', async () => {
    let url = '';
    await withServer(
      (_req, res) => res.end(),
      (u) => {
        url = u;
        return Promise.resolve();
      },
    );
    // The server is closed now, so its port refuses.
    const attempt = await post(url);
    assert.equal(attempt.ok, false);
    assert.equal(attempt.status, null);
    assert.equal(attempt.error, 'connection refused');
  });

  it('times out against a server that never answers', async () => {
    await withServer(
      () => undefined,
      async (url, received) => {
        const attempt = await post(url, { timeoutMs: 200 });
        assert.equal(attempt.ok, false);
        assert.equal(attempt.status, null);
        assert.equal(attempt.error, 'timeout after 0.2 s');
        assert.ok(attempt.durationMs >= 150 && attempt.durationMs < 5000, `took ${attempt.durationMs} ms`);
        assert.equal(received.length, 1);
      },
    );
  });

  it('without allowInsecure refuses http, private literals and names resolving to loopback without connecting', async () => {
    await withServer(
      (_req, res) => res.end(),
      async (url, received, connections) => {
        const insecure = await post(url, { allowInsecure: false });
        assert.equal(insecure.ok, false);
        assert.equal(insecure.error, INSECURE_REFUSED);

        const literal = await post(url.replace('http://', 'https://'), { allowInsecure: false });
        assert.equal(literal.ok, false);
        assert.equal(literal.error, 'resolves to a private address');

        // A name is vetted by the connect-time lookup, which is what defeats DNS rebinding.
        const named = await post(url.replace('http://127.0.0.1', 'https://localhost'), { allowInsecure: false });
        assert.equal(named.ok, false);
        assert.equal(named.status, null);
        assert.equal(named.error, 'resolves to a private address');

        assert.equal(connections(), 0);
        assert.equal(received.length, 0);
      },
    );
  });

  it('never throws, even for garbage or a key that is not a valid header value', async () => {
    const garbage = await post('::not a url::');
    assert.deepEqual({ ok: garbage.ok, error: garbage.error }, { ok: false, error: 'is not a valid URL' });
    const badKey = await postWebhook({
      url: 'http://127.0.0.1:1/',
      key: 'line\nbreak',
      id: 'u',
      body: '{}',
      allowInsecure: true,
      now: NOW,
    });
    assert.equal(badKey.ok, false);
    assert.equal(badKey.error, 'key or id is not a valid header value');
  });
});
