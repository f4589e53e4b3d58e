import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ConfigError, loadConfig } from './config.js';

/** The problems a start with `env` is refused with; none when it starts. */
const refused = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
    return [];
  } catch (e) {
    assert.ok(e instanceof ConfigError, 'e instanceof ConfigError');
    return e.problems;
  }
};

it('uses the documented defaults', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.databaseUrl, 'sqlite:./data/platform.db');
  assert.equal(c.publicUrl, 'http://localhost:8080');
  assert.deepEqual(
    [c.authCodeTtlS, c.accessTokenTtlS, c.refreshTokenTtlS, c.paymentTokenTtlS],
    [300, 7200, 1209600, 300],
  );
  assert.equal(c.webhookAllowInsecure, false);
  assert.equal(c.rateLimits, true);
  assert.equal(c.redisUrl, undefined);
});

it('reads every documented setting', () => {
  const c = loadConfig({
    PORT: '9000',
    DATABASE_URL: 'postgres://u@h/db',
    REDIS_URL: 'redis://127.0.0.1:6379',
    ADMIN_TOKEN: 'a-long-enough-token',
    PUBLIC_URL: 'https://open.example/',
    AUTH_CODE_TTL_S: '1',
    ACCESS_TOKEN_TTL_S: '2',
    REFRESH_TOKEN_TTL_S: '3',
    PAYMENT_TOKEN_TTL_S: '4',
    WEBHOOK_ALLOW_INSECURE: '1',
    RATE_LIMITS: 'off',
  });
  assert.equal(c.port, 9000);
  assert.equal(c.publicUrl, 'https://open.example');
  assert.deepEqual([c.authCodeTtlS, c.accessTokenTtlS, c.refreshTokenTtlS, c.paymentTokenTtlS], [1, 2, 3, 4]);
  assert.equal(c.webhookAllowInsecure, true);
  assert.equal(c.rateLimits, false);
});

it('rejects bad settings listing every problem', () => {
  assert.throws(
    () => loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', ACCESS_TOKEN_TTL_S: '-5', RATE_LIMITS: 'maybe' }),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError, 'e instanceof ConfigError');
      assert.equal(e.problems.length, 4);
      assert.match(e.message, /PORT/);
      assert.match(e.message, /DATABASE_URL/);
      assert.match(e.message, /ACCESS_TOKEN_TTL_S/);
      assert.match(e.message, /RATE_LIMITS/);
      return true;
    },
  );
});

it('ADMIN_TOKEN of any length is accepted (operator-api.md sets none); one under 16 characters warns', () => {
  const c = loadConfig({ ADMIN_TOKEN: 'secret' });
  assert.equal(c.adminToken, 'secret');
  assert.deepEqual(c.warnings, [
    'ADMIN_TOKEN is shorter than 16 characters: easy to guess; choose a longer one outside tests',
  ]);
  assert.deepEqual(loadConfig({ ADMIN_TOKEN: 'sixteen-chars-ok' }).warnings, []);
  assert.deepEqual(loadConfig({}).warnings, []);
});

it('TRUST_PROXY lists addresses and CIDR ranges, and names each entry that is neither', () => {
  assert.deepEqual(loadConfig({}).trustProxy, []);
  assert.deepEqual(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8, 127.0.0.1,fd00::/8 ,::1' }).trustProxy, [
    '10.0.0.0/8',
    '127.0.0.1',
    'fd00::/8',
    '::1',
  ]);
  assert.throws(
    () => loadConfig({ TRUST_PROXY: '10.0.0.0/33,proxy.local,1.2.3.4/8/8,::1/129,true' }),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError, 'e instanceof ConfigError');
      assert.deepEqual(
        e.problems,
        ['10.0.0.0/33', 'proxy.local', '1.2.3.4/8/8', '::1/129', 'true'].map(
          (v) => `TRUST_PROXY must list IP addresses or CIDR ranges (got "${v}")`,
        ),
      );
      return true;
    },
  );
});

it('refuses settings that parsed but could not work, naming each', () => {
  assert.deepEqual(refused({ PORT: '08080' }), ['PORT must be a whole number from 0 to 65535 (got "08080")']);
  assert.deepEqual(refused({ ADMIN_TOKEN: 'admin token 0123456789' }), [
    'ADMIN_TOKEN may hold only visible ASCII characters (no spaces, control or non-ASCII characters)',
  ]);
  assert.deepEqual(refused({ METRICS_TOKEN: 'metrics token' }), [
    'METRICS_TOKEN may hold only visible ASCII characters (no spaces, control or non-ASCII characters)',
  ]);
  assert.deepEqual(refused({ ENCRYPTION_KEY: `${'A'.repeat(43)}!=` }), ['ENCRYPTION_KEY must be 32 bytes in base64']);
  for (const url of ['https://open example', 'https://open.example/?a=1', 'https://open.example/#x']) {
    assert.deepEqual(refused({ PUBLIC_URL: url }), [
      `PUBLIC_URL must be an http(s) address without spaces, query or fragment (got "${url.replace(/\/+$/, '')}")`,
    ]);
  }
  assert.deepEqual(refused({ REDIS_URL: 'redis:// ' }), ['REDIS_URL must be redis://... or rediss://...']);
  assert.deepEqual(refused({ DATABASE_URL: 'sqlite: ' }), [
    'DATABASE_URL must be sqlite:<path> or postgres://... (got "sqlite:")',
  ]);
  // Still accepted: a path with a space inside, a PUBLIC_URL with a path, a 32-byte key (in either
  // base64 alphabet), values mounted from files with their newline, and a base above the cap (the
  // backoff is capped anyway).
  const key = Buffer.alloc(32, 0xfb);
  const accepted = {
    DATABASE_URL: 'sqlite:./my data/platform.db\n',
    REDIS_URL: 'redis://127.0.0.1:6379\n',
    PUBLIC_URL: 'https://open.example/platform/',
    ENCRYPTION_KEY: `${key.toString('base64')}\n`,
    ADMIN_TOKEN: 'mounted-admin-token-0123456789\n',
    WEBHOOK_RETRY_BASE_MS: '5000',
    WEBHOOK_RETRY_MAX_MS: '1000',
  };
  assert.deepEqual(refused(accepted), []);
  const c = loadConfig(accepted);
  assert.deepEqual(
    [c.databaseUrl, c.redisUrl, c.adminToken, c.encryptionKey],
    [
      'sqlite:./my data/platform.db',
      'redis://127.0.0.1:6379',
      'mounted-admin-token-0123456789',
      key.toString('base64'),
    ],
  );
  assert.deepEqual(refused({ ENCRYPTION_KEY: key.toString('base64url') }), []);
});

it('SQLITE_SYNCHRONOUS is normal by default, full on request (any case), and nothing else', () => {
  assert.equal(loadConfig({}).sqliteSynchronous, 'normal');
  assert.equal(loadConfig({ SQLITE_SYNCHRONOUS: 'FULL' }).sqliteSynchronous, 'full');
  assert.equal(loadConfig({ SQLITE_SYNCHRONOUS: 'normal' }).sqliteSynchronous, 'normal');
  assert.deepEqual(refused({ SQLITE_SYNCHRONOUS: 'off' }), ['SQLITE_SYNCHRONOUS must be normal or full (got "off")']);
});

/** DATABASE_URL refused, and how the problem shows the value. */
const refusedAs = (databaseUrl: string, shown: string) => {
  assert.deepEqual(refused({ DATABASE_URL: databaseUrl }), [
    `DATABASE_URL must be sqlite:<path> or postgres://... (got "${shown}")`,
  ]);
};

it('a refused address is named with its password masked, even when it does not parse', () => {
  refusedAs('postgres://admin:S3cret pw@db/x', 'postgres://admin:***@db/x');
  assert.deepEqual(refused({ PUBLIC_URL: 'https://op:S3cret@open.example:99999' }), [
    'PUBLIC_URL is not a valid address (got "https://op:***@open.example:99999"): check its host and port',
  ]);
  // Quoted as an env file may leave it, or without the slashes: still masked.
  refusedAs('"postgres://u:S3cret@db/x"', '"postgres://u:***@db/x"');
  refusedAs('postgres:u:S3cret@db', 'postgres:u:***@db');
  // The password runs to the last @ (it may hold @, : and /); a user alone is no secret.
  refusedAs('postgres://:p@ss:w/rd @db:5432/x', 'postgres://:***@db:5432/x');
  refusedAs('postgres://admin @db/x', 'postgres://admin @db/x');
});

it('a password given as a query parameter (password=, sslpassword=, any case) is masked too', () => {
  refusedAs('postgres:db/x?password=S3cret&sslmode=require', 'postgres:db/x?password=***&sslmode=require');
  refusedAs('postgres:db/x?sslmode=require&SSLPassword=S3cret#f', 'postgres:db/x?sslmode=require&SSLPassword=***#f');
  // An @ inside it ends nothing: the user part stays as it was, the value is gone whole.
  refusedAs('postgres:u@db:5432/x?PASSWORD=p@ss:w0rd', 'postgres:u@db:5432/x?PASSWORD=***');
  assert.deepEqual(refused({ PUBLIC_URL: 'https://open.example/?password=S3cret' }), [
    'PUBLIC_URL must be an http(s) address without spaces, query or fragment (got "https://open.example/?password=***")',
  ]);
  // Only a parameter named so: another that ends in password, or a path, is left as it is.
  refusedAs('postgres:db/password=x?app_password_hint=y', 'postgres:db/password=x?app_password_hint=y');
});

it('PUBLIC_URL must also be an address URL accepts (a port in range, a host)', () => {
  for (const url of ['https://open.example:99999', 'http://host:abc', 'https://:80', 'https://[zz]']) {
    assert.deepEqual(refused({ PUBLIC_URL: url }), [
      `PUBLIC_URL is not a valid address (got "${url}"): check its host and port`,
    ]);
  }
  assert.equal(loadConfig({ PUBLIC_URL: 'https://[::1]:8443/p/' }).publicUrl, 'https://[::1]:8443/p');
});

it('a setting that is only blanks is refused by name; an empty one is unset', () => {
  const names = [
    'DATABASE_URL',
    'REDIS_URL',
    'ADMIN_TOKEN',
    'METRICS_TOKEN',
    'PUBLIC_URL',
    'ENCRYPTION_KEY',
    'KEY_FILE',
    'REDIS_PREFIX',
  ];
  for (const name of names) {
    assert.deepEqual(refused({ [name]: ' \n' }), [
      `${name} is only blanks: set a value, or leave it empty for the default`,
    ]);
  }
  const unset = loadConfig(Object.fromEntries(names.map((name) => [name, ''])));
  assert.deepEqual(
    [unset.databaseUrl, unset.redisUrl, unset.adminToken, unset.metricsToken, unset.publicUrl, unset.keyFile],
    ['sqlite:./data/platform.db', undefined, undefined, undefined, 'http://localhost:8080', './data/encryption.key'],
  );
});

it('REDIS_PREFIX: empty by default; 1 to 64 of A-Z a-z 0-9 : . _ - taken as given; anything else refused by name', () => {
  const redis = { REDIS_URL: 'redis://127.0.0.1:6379' };
  assert.equal(loadConfig({}).redisPrefix, '');
  assert.equal(loadConfig({ ...redis, REDIS_PREFIX: '' }).redisPrefix, '');
  for (const prefix of ['staging:', 'op.prod-1_eu:', 'a', 'x'.repeat(64)]) {
    const c = loadConfig({ ...redis, REDIS_PREFIX: prefix });
    assert.equal(c.redisPrefix, prefix);
    assert.deepEqual(c.warnings, []);
  }
  // Mounted from a file, with its newline.
  assert.equal(loadConfig({ ...redis, REDIS_PREFIX: 'staging:\n' }).redisPrefix, 'staging:');
  for (const prefix of ['x'.repeat(65), 'stag ing:', 'staging/', 'pré:', '{slot}:', 'a*']) {
    assert.deepEqual(refused({ ...redis, REDIS_PREFIX: prefix }), [
      `REDIS_PREFIX must be 1 to 64 characters of A-Z, a-z, 0-9, ':', '.', '_' or '-' (got "${prefix}")`,
    ]);
  }
  assert.deepEqual(loadConfig({ REDIS_PREFIX: 'staging:' }).warnings, [
    'REDIS_PREFIX is set without REDIS_URL: it has no effect',
  ]);
});

it('ADMIN_TOKEN and METRICS_TOKEN hold only what an HTTP header carries: visible ASCII', () => {
  for (const name of ['ADMIN_TOKEN', 'METRICS_TOKEN']) {
    for (const token of [
      'tökén-0123456789abc',
      'token\u0001-0123456789',
      'token\t0123456789',
      'token-\u00a00123456789',
    ]) {
      assert.deepEqual(refused({ [name]: token }), [
        `${name} may hold only visible ASCII characters (no spaces, control or non-ASCII characters)`,
      ]);
    }
  }
  const punctuated = '!"#$%&\'()*+,-./09:;<=>?@AZ[\\]^_`az{|}~';
  assert.deepEqual(refused({ ADMIN_TOKEN: punctuated, METRICS_TOKEN: punctuated }), []);
});
