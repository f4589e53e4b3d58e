// Indexed text that clients send is bounded in UTF-8 bytes as well as in characters: PostgreSQL
// refuses a btree index row over 2704 bytes (a 500), while SQLite stores it, so a limit in code
// points alone let 1,000 CJK characters (3 bytes each) through on one store and not the other.
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { it } from 'node:test';
import { adminHeaders, describeStores } from './helpers/app.js';
import { createUsers, postEvents, uid } from './helpers/factories.js';

/** `n` random CJK characters (3 bytes each in UTF-8): random, so PostgreSQL cannot compress them. */
const cjk = (n: number): string =>
  Array.from({ length: n }, () => String.fromCodePoint(0x4e00 + randomInt(0x5000))).join('');

await describeStores('indexed text bounded in UTF-8 bytes', (t) => {
  it('redirect URIs: over 2048 bytes is 400 invalid_request, up to 2048 bytes is created', async () => {
    const [owner] = await createUsers(t().app, 1);
    const create = (uri: string) =>
      t().app.inject({
        method: 'POST',
        url: '/internal/v1/apps',
        headers: adminHeaders,
        payload: { owner_user_id: owner?.user_id, name: 'bytes', redirect_uris: [uri] },
      });
    const base = 'https://c.example/';
    const cases: { uri: string; status: number }[] = [
      { uri: base + cjk(1000), status: 400 }, // 1,018 characters, 3,018 bytes
      { uri: base + cjk(677), status: 400 }, // 2,049 bytes
      { uri: base + cjk(676), status: 201 }, // 2,046 bytes
      { uri: base + 'x'.repeat(2048 - base.length), status: 201 }, // 2,048 ASCII characters
    ];
    for (const c of cases) {
      const res = await create(c.uri);
      const what = `${Buffer.byteLength(c.uri)} bytes`;
      assert.equal(res.statusCode, c.status, `${what}: ${res.body}`);
      if (c.status === 400) {
        assert.deepEqual(
          res.json(),
          { error: 'invalid_request', message: 'redirect_uris: at most 2048 bytes in UTF-8' },
          what,
        );
      }
    }
  });

  it('group.upserted: an invite URL over 2048 bytes is refused invite_url_too_long, and nothing is stored', async () => {
    const base = 'https://x.example/';
    const upsert = async (invite_url: string, expected: 'applied' | 'invite_url_too_long') => {
      const id = uid('evt');
      const group_id = uid('g');
      const r = await postEvents(t().app, [{ id, type: 'group.upserted', data: { group_id, name: 'g', invite_url } }]);
      const what = `${Buffer.byteLength(invite_url)} bytes`;
      assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(
        r.body,
        expected === 'applied'
          ? { applied: 1, duplicates: 0, refused: [] }
          : { applied: 0, duplicates: 0, refused: [{ id, reason: expected }] },
        what,
      );
      const row = await t()
        .services.db.k.selectFrom('groups')
        .select('group_id')
        .where('group_id', '=', group_id)
        .executeTakeFirst();
      assert.equal(row !== undefined, expected === 'applied', what);
    };
    await upsert(base + cjk(1000), 'invite_url_too_long'); // 1,018 characters, 3,018 bytes
    await upsert(base + cjk(677), 'invite_url_too_long'); // 2,049 bytes
    await upsert(base + cjk(676), 'applied'); // 2,046 bytes
    await upsert(base + 'x'.repeat(1024 - base.length), 'applied'); // the 1,024 characters the schema allows
  });
});
