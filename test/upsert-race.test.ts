// Two instances on one PostgreSQL schema upserting the same users and groups at once, each event
// giving only some of the optional fields: every field given must survive, whichever batch commits
// last (a batch reads the current rows, merges the event's fields, and writes the rows back; it
// must read them locked, or the later writer writes back the other's stale values). SQLite has one
// writer at a time, so the race cannot happen there: the suite runs on PostgreSQL only.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { dropSchema, FakeClock, startTestApp, type TestApp } from './helpers/app.js';
import { postEvents, uid, wallet, type Ev } from './helpers/factories.js';
import { storesUnderTest } from './helpers/stores.js';

const skip = (await storesUnderTest()).includes('postgres')
  ? false
  : 'PostgreSQL not reachable (set TEST_DATABASE_URL)';
const USERS = 40;
const ROUNDS = 8;
const BOUNDED = { timeout: 120_000 };

interface Person {
  user_id: string;
  name: string;
  wallet_address: string;
}

await describe('concurrent partial upserts from two instances (PostgreSQL)', { skip }, () => {
  const clock = new FakeClock();
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const encryptionKey = randomBytes(32);
  let a: TestApp | undefined;
  let b: TestApp | undefined;
  const both = (): [TestApp, TestApp] => {
    if (a === undefined || b === undefined) throw new Error('instances not started');
    return [a, b];
  };
  const db = () => both()[0].services.db.k;
  const person = (): Person => {
    const id = uid('u');
    return { user_id: id, name: `name-${id}`, wallet_address: wallet() };
  };
  const upserted = (p: Person, fields: Record<string, unknown>): Ev => ({
    type: 'user.upserted',
    data: { ...p, ...fields },
  });
  /** Posts the batch and expects every event applied. */
  const applied = async (on: TestApp, events: Ev[]): Promise<void> => {
    const r = await postEvents(on.app, events);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, { applied: events.length, duplicates: 0, refused: [] });
  };
  /** The same, one event at a time (the reference path, test/events-differential.test.ts). */
  const appliedOneByOne = async (on: TestApp, events: Ev[]): Promise<void> => {
    const received = events.map((e) => ({ id: uid('evt'), type: e.type, data: e.data }));
    const { result } = await on.services.events.apply(received, 'one-by-one');
    assert.deepEqual(result, { applied: events.length, duplicates: 0, refused: [] });
  };
  const usersOf = (people: readonly Person[]) =>
    db()
      .selectFrom('users')
      .select(['user_id', 'wallet_address', 'avatar', 'level', 'level_icon'])
      .where(
        'user_id',
        'in',
        people.map((p) => p.user_id),
      )
      .execute();
  /** Each user's wallets on chain 1: exactly one, the address its row names. */
  const assertOneWalletEach = async (people: readonly Person[]): Promise<void> => {
    const wallets = await db()
      .selectFrom('wallets')
      .select(['user_id', 'address'])
      .where('chain_id', '=', 1)
      .where(
        'user_id',
        'in',
        people.map((p) => p.user_id),
      )
      .execute();
    const rows = new Map((await usersOf(people)).map((u) => [u.user_id, u.wallet_address]));
    for (const p of people) {
      const mine = wallets.filter((w) => w.user_id === p.user_id).map((w) => w.address);
      assert.deepEqual(mine, [rows.get(p.user_id)], `${p.user_id}: wallets on chain 1`);
    }
  };

  before(async () => {
    a = await startTestApp('postgres', { schema, encryptionKey, clock });
    b = await startTestApp('postgres', { schema, encryptionKey, clock });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    if (skip === false) await dropSchema(schema);
  });

  for (const [mode, apply] of [
    ['set-based batches', applied],
    ['one event at a time', appliedOneByOne],
  ] as const) {
    it(`A sets the level while B sets the avatar of the same existing users (${mode})`, BOUNDED, async () => {
      const [A, B] = both();
      const people = Array.from({ length: USERS }, person);
      await applied(
        A,
        people.map((p) => upserted(p, { level: 1, avatar: 'a0' })),
      );
      for (let round = 1; round <= ROUNDS; round++) {
        await Promise.all([
          apply(
            A,
            people.map((p) => upserted(p, { level: round + 1 })),
          ),
          apply(
            B,
            people.map((p) => upserted(p, { avatar: `a${round}` })),
          ),
        ]);
        const lost = (await usersOf(people))
          .filter((u) => u.level !== round + 1 || u.avatar !== `a${round}`)
          .map((u) => `${u.user_id}: level ${u.level}, avatar ${u.avatar}`);
        assert.deepEqual(lost, [], `round ${round}: rows that lost a field`);
      }
      await assertOneWalletEach(people);
    });

    it(`A and B create the same users at once, each giving other fields and wallets (${mode})`, BOUNDED, async () => {
      const [A, B] = both();
      for (let round = 1; round <= ROUNDS / 2; round++) {
        const people = Array.from({ length: USERS }, person);
        await Promise.all([
          apply(
            A,
            people.map((p) => upserted(p, { level: 7 })),
          ),
          apply(
            B,
            people.map((p) => upserted({ ...p, wallet_address: wallet() }, { avatar: 'made by B' })),
          ),
        ]);
        const lost = (await usersOf(people))
          .filter((u) => u.level !== 7 || u.avatar !== 'made by B')
          .map((u) => `${u.user_id}: level ${u.level}, avatar ${u.avatar}`);
        assert.deepEqual(lost, [], `round ${round}: rows that lost a field`);
        await assertOneWalletEach(people);
      }
    });
  }

  it('six instances create the same new users at once, each a random half of them: none fails', BOUNDED, async () => {
    // Each retried attempt gets past the rows its rivals committed, but another rival may win the
    // next new user: with three attempts 15 batches of 36 failed (23505) here.
    const more = await Promise.all(
      Array.from({ length: 4 }, () => startTestApp('postgres', { schema, encryptionKey, clock })),
    );
    try {
      const instances = [...both(), ...more];
      for (let round = 1; round <= 6; round++) {
        const people = Array.from({ length: 60 }, person);
        const answers = await Promise.all(
          instances.map((on) => {
            const half = people.filter(() => Math.random() < 0.5);
            return postEvents(
              on.app,
              half.map((p) => upserted(p, {})),
            ).then((r) => ({ status: r.status, refused: r.body.refused }));
          }),
        );
        assert.deepEqual(
          answers.filter((r) => r.status !== 200 || JSON.stringify(r.refused) !== '[]'),
          [],
          `round ${round}`,
        );
      }
    } finally {
      await Promise.all(more.map((m) => m.close()));
    }
  });

  it('A sets the maximum while B sets the picture of the same existing groups', BOUNDED, async () => {
    const [A, B] = both();
    const groups = Array.from({ length: USERS }, () => {
      const id = uid('g');
      return { group_id: id, name: `group ${id}`, invite_url: `https://join.example/${id}` };
    });
    const upsertedGroup = (g: (typeof groups)[number], fields: Record<string, unknown>): Ev => ({
      type: 'group.upserted',
      data: { ...g, ...fields },
    });
    await applied(
      A,
      groups.map((g) => upsertedGroup(g, { maximum: 1, pic: 'p0' })),
    );
    for (let round = 1; round <= ROUNDS; round++) {
      // One request per group, so the two instances' transactions interleave group by group.
      await Promise.all(
        groups.flatMap((g) => [
          applied(A, [upsertedGroup(g, { maximum: round + 1 })]),
          applied(B, [upsertedGroup(g, { pic: `p${round}` })]),
        ]),
      );
      const rows = await db()
        .selectFrom('groups')
        .select(['group_id', 'maximum', 'pic'])
        .where(
          'group_id',
          'in',
          groups.map((g) => g.group_id),
        )
        .execute();
      const lost = rows
        .filter((g) => g.maximum !== round + 1 || g.pic !== `p${round}`)
        .map((g) => `${g.group_id}: maximum ${g.maximum}, pic ${g.pic}`);
      assert.deepEqual(lost, [], `round ${round}: groups that lost a field`);
    }
  });
});
