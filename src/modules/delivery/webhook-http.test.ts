// Webhook HTTP: the Standard Webhooks signature, the URL policy and single delivery attempts
// against local servers on 127.0.0.1.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import {
  INSECURE_REFUSED,
  checkWebhookUrl,
  isDisallowedAddress,
  postWebhook,
  webhookHeaders,
  WEBHOOK_DNS_LIMIT_MS,
  WEBHOOK_TIMEOUT_MS,
  type HostResolver,
  type WebhookDns,
} from './webhook-http.js';

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
const post = (url: string, extra: { allowInsecure?: boolean; timeoutMs?: number } = {}) =>
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

describe('isDisallowedAddress', () => {
  const table: [string, boolean][] = [
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['172.32.0.1', false],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['100.127.255.255', true],
    ['100.128.0.1', false],
    ['198.18.0.1', true],
    ['198.19.255.255', true],
    ['198.17.255.255', false],
    ['198.20.0.1', false],
    ['0.0.0.0', true],
    ['0.1.2.3', true],
    ['224.0.0.1', true],
    ['239.255.255.250', true],
    ['255.255.255.255', true],
    ['8.8.8.8', false],
    ['93.184.216.34', false],
    ['::', true],
    ['::1', true],
    ['fc00::1', true],
    ['fd12:3456::1', true],
    ['fe80::1', true],
    ['fe80::1%eth0', true],
    ['febf::1', true],
    ['ff02::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:10.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:8.8.8.8', false],
    ['64:ff9b::7f00:1', true], // NAT64 of 127.0.0.1
    ['64:ff9b::808:808', true], // NAT64 of a public address: still not vetted through the gateway
    ['64:ff9b:1:ffff::1', true],
    ['64:ff9b:2::1', false],
    ['2002:a00:1::1', true], // 6to4 of 10.0.0.1
    ['2003::1', false],
    ['2606:4700:4700::1111', false],
    ['2001:4860:4860::8888', false],
    ['not an address', true],
    ['', true],
  ];
  for (const [address, disallowed] of table) {
    it(`${address || '(empty)'} → ${disallowed ? 'disallowed' : 'allowed'}`, () => {
      assert.equal(isDisallowedAddress(address), disallowed);
    });
  }
});

describe('checkWebhookUrl', () => {
  it('refuses http without allowInsecure', async () => {
    assert.equal(await checkWebhookUrl('http://example.com/hook', false), INSECURE_REFUSED);
  });

  for (const url of [
    'https://127.0.0.1/',
    'https://10.1.2.3/',
    'https://192.168.1.1/',
    'https://169.254.169.254/',
    'https://[::1]/',
    'https://[fe80::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://0x7f.1/', // WHATWG URL normalises this to 127.0.0.1
  ]) {
    it(`refuses ${url}`, async () => {
      assert.equal(await checkWebhookUrl(url, false), 'resolves to a private address');
    });
  }

  it('refuses https://localhost/ (resolves to loopback)', async () => {
    assert.notEqual(await checkWebhookUrl('https://localhost/', false), undefined);
  });

  it('accepts a public literal IP without DNS', async () => {
    assert.equal(await checkWebhookUrl('https://93.184.216.34/', false), undefined);
    assert.equal(await checkWebhookUrl('https://[2606:4700:4700::1111]/x', false), undefined);
  });

  it('refuses garbage and other schemes', async () => {
    assert.equal(await checkWebhookUrl('not a url', false), 'is not a valid URL');
    assert.equal(await checkWebhookUrl('', true), 'is not a valid URL');
    assert.equal(await checkWebhookUrl('ftp://93.184.216.34/', false), INSECURE_REFUSED);
    assert.equal(await checkWebhookUrl('ftp://127.0.0.1/', true), 'must start with http:// or https://');
  });

  it('refuses a host that does not resolve', async () => {
    assert.equal(await checkWebhookUrl('https://no-such-host.invalid/', false), 'host does not resolve');
  });

  it('with allowInsecure accepts http and private addresses', async () => {
    assert.equal(await checkWebhookUrl('http://127.0.0.1:1234/', true), undefined);
    assert.equal(await checkWebhookUrl('https://10.1.2.3/', true), undefined);
  });
});

/** A DNS error as c-ares reports it (ENODATA: the name has no record of that type). */
const dnsError = (code: string): Promise<never> => Promise.reject(Object.assign(new Error(code), { code }));
const never = (): Promise<never> => new Promise<never>(() => undefined);
/** An injected resolver and a limit of a few ms, so nothing waits for real DNS. */
const dns = (resolver: Partial<HostResolver>): WebhookDns => ({
  resolver: { resolve4: () => dnsError('ENODATA'), resolve6: () => dnsError('ENODATA'), ...resolver },
  limitMs: 5,
});

describe('webhook host names: c-ares with a time limit', () => {
  const silent = dns({ resolve4: never, resolve6: never });

  it('limits a look-up to 3 s', () => {
    assert.equal(WEBHOOK_DNS_LIMIT_MS, 3_000);
  });

  it('refuses a name whose DNS never answers once the limit passes', async () => {
    const started = performance.now();
    assert.equal(await checkWebhookUrl('https://hook.example/', false, silent), 'host did not resolve in time');
    assert.ok(performance.now() - started < 1_000, 'ended by the 5 ms limit');
  });

  it('a delivery to such a name fails as a network error without connecting', async () => {
    const attempt = await postWebhook({ ...ATTEMPT, url: 'https://hook.example/', allowInsecure: false, dns: silent });
    assert.deepEqual(
      { ok: attempt.ok, status: attempt.status, error: attempt.error },
      { ok: false, status: null, error: 'host did not resolve in time' },
    );
  });

  it('c-ares giving up (ETIMEOUT) is reported the same way; NXDOMAIN as not resolving', async () => {
    const timedOut = dns({ resolve4: () => dnsError('ETIMEOUT'), resolve6: () => dnsError('ETIMEOUT') });
    assert.equal(await checkWebhookUrl('https://hook.example/', false, timedOut), 'host did not resolve in time');
    const missing = dns({ resolve4: () => dnsError('ENOTFOUND'), resolve6: () => dnsError('ENOTFOUND') });
    assert.equal(await checkWebhookUrl('https://hook.example/', false, missing), 'host does not resolve');
  });

  it('accepts a name with public addresses in one family only, and refuses one with ANY private address', async () => {
    const v4 = dns({ resolve4: () => Promise.resolve(['93.184.216.34']) });
    assert.equal(await checkWebhookUrl('https://hook.example/', false, v4), undefined);
    const v6 = dns({ resolve6: () => Promise.resolve(['2606:4700:4700::1111']) });
    assert.equal(await checkWebhookUrl('https://hook.example/', false, v6), undefined);
    const mixed = dns({
      resolve4: () => Promise.resolve(['93.184.216.34']),
      resolve6: () => Promise.resolve(['fd00::1']),
    });
    assert.equal(await checkWebhookUrl('https://hook.example/', false, mixed), 'resolves to a private address');
  });

  it('at the limit, a family that answered is enough (resolvers that drop AAAA queries)', async () => {
    const noAaaa = dns({ resolve4: () => Promise.resolve(['93.184.216.34']), resolve6: never });
    assert.equal(await checkWebhookUrl('https://hook.example/', false, noAaaa), undefined);
    const privateV4 = dns({ resolve4: () => Promise.resolve(['10.0.0.1']), resolve6: never });
    assert.equal(await checkWebhookUrl('https://hook.example/', false, privateV4), 'resolves to a private address');
  });

  it('refuses port 0 and user:password@ in the URL', async () => {
    assert.equal(await checkWebhookUrl('https://8.8.8.8:0/', false), 'must not use port 0');
    assert.equal(await checkWebhookUrl('https://user:pw@8.8.8.8/', false), 'must not contain user:password@');
    assert.equal(await checkWebhookUrl('http://u@127.0.0.1:1234/', true), 'must not contain user:password@');
  });

  it('localhost names are loopback without asking DNS (c-ares does not read /etc/hosts)', async () => {
    for (const url of ['https://localhost/', 'https://api.localhost./']) {
      assert.equal(await checkWebhookUrl(url, false, silent), 'resolves to a private address', url);
    }
  });

  it('literal IPs and allowInsecure never ask DNS', async () => {
    assert.equal(await checkWebhookUrl('https://93.184.216.34/', false, silent), undefined);
    assert.equal(await checkWebhookUrl('https://hook.example/', true, silent), undefined);
  });

  it('the connect-time look-up refuses a name that now resolves to a private address (DNS rebinding)', async () => {
    let answers = ['93.184.216.34'];
    const rebinding = dns({ resolve4: () => Promise.resolve(answers) });
    assert.equal(await checkWebhookUrl('https://hook.example/', false, rebinding), undefined);
    answers = ['127.0.0.1'];
    const attempt = await postWebhook({
      ...ATTEMPT,
      url: 'https://hook.example/',
      allowInsecure: false,
      dns: rebinding,
    });
    assert.equal(attempt.error, 'resolves to a private address');
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
