// The credential caches against a counted stand-in for the store: what is read, what is
// remembered, and what a stranger's keys or a reset racing a read can do to them.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import type { Prepared } from '../src/db/prepared.js';
import { sha256Hex, SecretBox } from '../src/lib/crypto.js';
import { appKey, Invalidations } from '../src/lib/invalidation.js';
import { localSharedState } from '../src/lib/shared-state.js';
import { fakeInstance, FakeRedis } from './helpers/fake-redis.js';
import { CredentialStore } from '../src/modules/auth/index.js';
import type { CredentialRow } from '../src/modules/auth/repo.js';

const APP_ID = 'app_0123456789abcdef';
const box = new SecretBox(randomBytes(32));

/** The store's one app, and the look-ups made of it. */
class FakeApps {
  secret = 'a'.repeat(40);
  /** The app's App Key (a reset changes it). */
  key = 'the-key';
  readonly queries: string[] = [];
  /** When set, a look-up waits for it (a reset can then land while the read is in flight). */
  gate: Promise<void> | undefined;

  private statement(name: string, matches: (arg: unknown) => boolean): Prepared<CredentialRow> {
    const first = async (args: readonly unknown[]): Promise<CredentialRow | undefined> => {
      this.queries.push(name);
      const row = matches(args[0]) ? this.row() : undefined;
      await this.gate;
      return row;
    };
    return {
      first,
      all: async (args) => {
        const row = await first(args);
        return row === undefined ? [] : [row];
      },
      run: () => Promise.reject(new Error('credential look-ups are reads')),
    };
  }

  private row(): CredentialRow {
    const sealed = box.seal(this.secret);
    return { app_id: APP_ID, kind: 'app', owner_user_id: 'u1', app_secret_enc: sealed, disabled: 0, bot_user_id: null };
  }

  readonly reads = {
    credentialByKeyHash: this.statement('key', (hash) => hash === sha256Hex(this.key)),
    credentialByAppId: this.statement('id', (id) => id === APP_ID),
  };
}

describe('credential caches', () => {
  let apps: FakeApps;
  let invalidations: Invalidations;
  let store: CredentialStore;
  beforeEach(() => {
    apps = new FakeApps();
    invalidations = new Invalidations(localSharedState().bus);
    store = new CredentialStore(apps.reads, box, invalidations, () => 0);
  });

  it('an App Secret check reads the app once, then answers from memory', async () => {
    assert.equal((await store.byAppSecret(APP_ID, apps.secret))?.appId, APP_ID);
    assert.equal((await store.byAppSecret(APP_ID, apps.secret))?.appId, APP_ID);
    assert.equal(await store.byAppSecret(APP_ID, `${apps.secret.slice(1)}b`), undefined, 'a wrong secret');
    assert.deepEqual(apps.queries, ['id']);
  });

  it('an unknown id is read once and then refused unread; an over-long one is never read', async () => {
    assert.equal(await store.byAppSecret('app_ffffffffffffffff', apps.secret), undefined);
    assert.equal(await store.byAppSecret('app_ffffffffffffffff', apps.secret), undefined);
    assert.equal(await store.byAppSecret('a'.repeat(65), apps.secret), undefined);
    assert.equal(await store.byAppSecret('a'.repeat(64), apps.secret), undefined);
    assert.deepEqual(apps.queries, ['id', 'id']);
  });

  it("no App Key a stranger sends takes the place of an app id's miss", async () => {
    for (const key of [APP_ID, `app_id ${APP_ID}`, `id:${sha256Hex(APP_ID)}`, sha256Hex(APP_ID)]) {
      assert.equal(await store.byApiKey(key), undefined, key);
    }
    assert.equal((await store.byAppSecret(APP_ID, apps.secret))?.appId, APP_ID);
  });

  it('a reset drops the cached credential: the next check reads the new secret', async () => {
    assert.ok(await store.byAppSecret(APP_ID, apps.secret), 'cached before the reset');
    const old = apps.secret;
    apps.secret = 'c'.repeat(40);
    invalidations.announce([appKey(APP_ID)]);
    assert.equal(await store.byAppSecret(APP_ID, old), undefined);
    assert.ok(await store.byAppSecret(APP_ID, apps.secret), 'the new secret');
    assert.deepEqual(apps.queries, ['id', 'id']);
  });

  it('a read that a reset overtook is answered but not remembered, for ids and keys alike', async () => {
    let open = () => {};
    apps.gate = new Promise((resolve) => (open = resolve));
    const byId = store.byAppSecret(APP_ID, apps.secret);
    const byKey = store.byApiKey('the-key');
    invalidations.announce([appKey(APP_ID)]);
    open();
    assert.ok(await byId, 'the check itself is answered');
    assert.ok(await byKey, 'the key too');
    apps.gate = undefined;
    assert.ok(await store.byAppSecret(APP_ID, apps.secret), 'read again');
    assert.ok(await store.byApiKey('the-key'), 'the key read again');
    assert.equal(store.cached('the-key')?.appId, APP_ID, 'remembered once read undisturbed');
    assert.deepEqual(apps.queries, ['id', 'key', 'id', 'key']);
  });

  it('while Redis is lost credentials are read from the store, not the cache: a reset elsewhere stops the old key at once', async () => {
    const redis = new FakeRedis();
    const instance = await fakeInstance(redis, 'here');
    const store = new CredentialStore(apps.reads, box, new Invalidations(instance.bus), () => 0);
    assert.equal((await store.byApiKey('the-key'))?.appId, APP_ID);
    assert.ok(await store.byAppSecret(APP_ID, apps.secret), 'the secret, cached');
    assert.equal(store.cached('the-key')?.appId, APP_ID);
    instance.link.lose();
    assert.equal(store.cached('the-key'), undefined, 'no cached answer while lost');
    assert.equal((await store.byApiKey('the-key'))?.appId, APP_ID, 'read from the store');
    // Reset on another instance: its announcement cannot arrive.
    apps.key = 'new-key';
    apps.secret = 'c'.repeat(40);
    assert.equal(await store.byApiKey('the-key'), undefined, 'the old key');
    assert.equal(await store.byAppSecret(APP_ID, 'a'.repeat(40)), undefined, 'the old secret');
    assert.equal((await store.byApiKey('new-key'))?.appId, APP_ID);
    assert.equal(store.cached('new-key'), undefined, 'nothing kept while lost');
    instance.link.back();
    assert.equal((await store.byApiKey('new-key'))?.appId, APP_ID);
    assert.equal(store.cached('new-key')?.appId, APP_ID, 'kept again once back');
    assert.deepEqual(apps.queries, ['key', 'id', 'key', 'key', 'id', 'key', 'key']);
  });

  it('a gap drops every cached credential: a key reset whose announcement was missed stops the old key', async () => {
    const redis = new FakeRedis();
    const instance = await fakeInstance(redis, 'here');
    const gapped = new CredentialStore(apps.reads, box, new Invalidations(instance.bus), () => 0);
    assert.equal((await gapped.byApiKey('the-key'))?.appId, APP_ID);
    assert.ok(await gapped.byAppSecret(APP_ID, apps.secret), 'the secret, cached');
    // Reset on another instance while this one's subscriber reconnects: its `app:` is never heard.
    instance.sub.lose();
    apps.key = 'new-key';
    apps.secret = 'c'.repeat(40);
    assert.equal(gapped.cached('the-key')?.appId, APP_ID, 'the old key, cached, is still accepted');
    const gap = new Promise<void>((resolve) => instance.bus.onGap(resolve));
    instance.sub.ready();
    await gap;
    assert.equal(gapped.cached('the-key'), undefined);
    assert.equal(await gapped.byApiKey('the-key'), undefined);
    assert.equal(await gapped.byAppSecret(APP_ID, 'a'.repeat(40)), undefined, 'the old secret');
    assert.equal((await gapped.byApiKey('new-key'))?.appId, APP_ID);
    assert.deepEqual(apps.queries, ['key', 'id', 'key', 'id', 'key']);
  });
});
