// The code exchange and the refresh are each one write: the code or old refresh token is spent,
// and the new refresh token stored, in one transaction. A store that fails on the new refresh
// token's insert (a fault injected here, answered 503 as store_unavailable) spends nothing, so the
// client's retry with the same code or refresh token succeeds and the grant is not revoked as a
// replay.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { describeStores, type TestApp } from './helpers/app.js';
import { createApp, createUsers, type Creds, type TestUser } from './helpers/factories.js';

const CB = 'https://client.example/cb';
const STORE_UNAVAILABLE = {
  code: 503,
  error: 'Service Unavailable',
  message: 'the database is unavailable; retry later',
};

interface Tokens {
  access_token: string;
  refresh_token: string;
}

/**
 * Makes every insert into refresh_tokens fail with an error the store reports when it cannot
 * write (SQLite: an I/O error; PostgreSQL: disk full, SQLSTATE 53100) until the answered function
 * is called. On SQLite the trigger is a TEMP one of the writer connection, calling a function
 * defined on it.
 */
async function failRefreshInserts(t: TestApp): Promise<() => Promise<void>> {
  const native = t.services.db.native;
  if (native.dialect === 'sqlite') {
    native.writer.function('op_test_fault', () => {
      throw Object.assign(new Error('disk I/O error (injected)'), { code: 'SQLITE_IOERR' });
    });
    native.writer.exec(
      'create temp trigger op_test_fault before insert on main.refresh_tokens begin select op_test_fault(); end',
    );
    return () => {
      native.writer.exec('drop trigger temp.op_test_fault');
      return Promise.resolve();
    };
  }
  const k = t.services.db.k;
  await sql`create function op_test_fault() returns trigger language plpgsql as $$
    begin raise exception 'disk full (injected)' using errcode = '53100'; end $$`.execute(k);
  await sql`create trigger op_test_fault before insert on refresh_tokens
    for each row execute function op_test_fault()`.execute(k);
  return async () => {
    await sql`drop trigger op_test_fault on refresh_tokens`.execute(k);
    await sql`drop function op_test_fault()`.execute(k);
  };
}

await describeStores('OAuth: a failed token write spends nothing; the retry succeeds', (t) => {
  let alice: TestUser;
  let app: Creds;

  const send = async (url: string, payload: Record<string, string>) => {
    const res = await t().app.inject({ method: 'POST', url, payload });
    return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
  };
  const exchange = (code: string) =>
    send('/openapi/oauth2/access_token', {
      grant_type: 'authorization_code',
      code,
      app_id: app.app_id,
      app_secret: app.app_secret,
      user_id: alice.user_id,
    });
  const refresh = (refreshToken: string) =>
    send('/openapi/oauth2/refresh_token', {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      app_id: app.app_id,
      app_secret: app.app_secret,
      user_id: alice.user_id,
    });
  const tokensOf = (r: { status: number; body: Record<string, unknown> }): Tokens => {
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.code, 1, JSON.stringify(r.body));
    const { access_token, refresh_token } = r.body.data as Record<string, unknown>;
    assert.ok(typeof access_token === 'string' && typeof refresh_token === 'string', 'both tokens');
    return { access_token, refresh_token };
  };
  const newCode = () =>
    t().services.oauth.issueCode(
      { app_id: app.app_id, name: 'test app', owner_user_id: alice.user_id },
      alice.user_id,
      CB,
      'moment',
    );
  const userInfo = async (accessToken: string) => {
    const res = await t().app.inject({
      method: 'POST',
      url: `/openapi/user/info?user_id=${alice.user_id}`,
      headers: { access_token: accessToken },
    });
    return res.json<{ code: number }>().code;
  };
  const families = async () =>
    t()
      .services.db.k.selectFrom('token_families')
      .select(['family_id', 'revoked_at'])
      .where('user_id', '=', alice.user_id)
      .execute();
  /** Runs `call` with refresh-token inserts failing: it must answer 503 store_unavailable. */
  const failing = async (call: () => Promise<{ status: number; body: Record<string, unknown> }>) => {
    const restore = await failRefreshInserts(t());
    try {
      const r = await call();
      assert.deepEqual([r.status, r.body], [503, STORE_UNAVAILABLE]);
    } finally {
      await restore();
    }
  };

  it('sets up a user and an app', async () => {
    [alice] = (await createUsers(t().app, 1)) as [TestUser];
    app = await createApp(t().app, alice.user_id, [CB]);
  });

  it('a code exchange whose refresh token cannot be stored leaves the code unused: the retry gets tokens', async () => {
    const code = await newCode();
    await failing(() => exchange(code));
    const tokens = tokensOf(await exchange(code));
    assert.equal(await userInfo(tokens.access_token), 1, 'the access token works');
    const [family, ...more] = await families();
    assert.deepEqual([family?.revoked_at, more], [null, []], 'one family, not revoked');
    tokensOf(await refresh(tokens.refresh_token));
  });

  it('a refresh whose new token cannot be stored leaves the old one unused: the retry with it gets tokens', async () => {
    const first = tokensOf(await exchange(await newCode()));
    await failing(() => refresh(first.refresh_token));
    const renewed = tokensOf(await refresh(first.refresh_token));
    assert.notEqual(renewed.refresh_token, first.refresh_token);
    assert.equal(await userInfo(first.access_token), 1, 'the family was not revoked: its first access token works');
    assert.equal(await userInfo(renewed.access_token), 1, 'the new access token works');
    assert.ok(
      (await families()).every((f) => f.revoked_at === null),
      'no family revoked',
    );
    // Rotation still holds: the new token renews once, and the spent one is still a reuse.
    tokensOf(await refresh(renewed.refresh_token));
    assert.equal((await refresh(first.refresh_token)).body.code, -2012, 'the spent token is refused');
  });
});
