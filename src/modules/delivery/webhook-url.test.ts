// Webhook URLs: the address policy and the DNS resolution behind it, when a URL is vetted and at
// connect time (no network: resolvers are injected).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import { postWebhook } from './webhook-post.js';
import {
  INSECURE_REFUSED,
  checkWebhookUrl,
  isDisallowedAddress,
  WEBHOOK_DNS_LIMIT_MS,
  type HostResolver,
  type WebhookDns,
} from './webhook-url.js';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0) + 789;
const ATTEMPT = { key: 'whk_3f9a1c7e5b2d4f60', id: 'upd_1', body: '{"a":1}', now: NOW };

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
