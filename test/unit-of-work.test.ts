// The unit of work (src/db/work.ts): on SQLite, writes that arrive while a transaction runs share
// the next one, each in a savepoint of its own. Each write is still all or nothing, is answered
// and announced only once the shared transaction committed, and one write's failure undoes that
// write alone. On PostgreSQL every write has a transaction of its own; the same answers hold.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { arg, prepare } from '../src/db/prepared.js';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Db } from '../src/db/connect.js';
import type { DB } from '../src/db/types.js';
import { UnitOfWork, type Work } from '../src/db/work.js';
import { LocalBus } from '../src/lib/shared-state.js';
import { AppError, Errors } from '../src/errors.js';
import { Invalidations, memberKey } from '../src/lib/invalidation.js';
import { describeStores, FakeClock } from './helpers/app.js';
import { applyEvents, createBot, createUsers, uid, type TestUser } from './helpers/factories.js';

await describeStores('unit of work', (t) => {
  const statements = () => {
    const { db } = t().services;
    return {
      insert: prepare(db, db.k.insertInto('meta').values({ key: arg(0), value: arg(1) })),
      read: prepare(db, db.k.selectFrom('meta').select('value').where('key', '=', arg(0))),
    };
  };
  const keys = (n: number) => {
    const prefix = `uow-${randomBytes(4).toString('hex')}`;
    return Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  };
  const sqlite = () => t().services.db.dialect === 'sqlite';

  it('writes started together are each kept, and on SQLite they share one transaction', async () => {
    const { work } = t().services;
    const { insert, read } = statements();
    const [k0 = '', ...rest] = keys(5);
    // On SQLite the five share one transaction, where each sees the writes before it but
    // committed data does not.
    const seen = await Promise.all(
      [k0, ...rest].map((key, i) =>
        work.run(async ({ tx }) => {
          await insert.run(tx, [key, String(i)]);
          const before = i === 0 ? undefined : [k0, ...rest][i - 1];
          if (before === undefined) return undefined;
          return {
            throughTx: (await read.run(tx, [before])).rows.length,
            committed: (await read.first([before])) === undefined ? 0 : 1,
          };
        }),
      ),
    );
    // PostgreSQL runs them at once, each in its own transaction: what each sees depends on timing.
    if (sqlite()) {
      assert.deepEqual(seen, [
        undefined,
        { throughTx: 1, committed: 0 },
        { throughTx: 1, committed: 0 },
        { throughTx: 1, committed: 0 },
        { throughTx: 1, committed: 0 },
      ]);
    }
    for (const [i, key] of [k0, ...rest].entries()) assert.deepEqual(await read.first([key]), { value: String(i) });
  });

  it('a shared transaction takes in writes for 50 ms at most: those after wait for the next one', async () => {
    const { work } = t().services;
    const { insert, read } = statements();
    const [slow = '', next = '', last = ''] = keys(3);
    const seen = await Promise.all([
      work.run(async ({ tx }) => {
        await insert.run(tx, [slow, 'v']);
        // Busy for 60 ms (not asleep: nothing else runs meanwhile).
        const end = performance.now() + 60;
        while (performance.now() < end);
      }),
      ...[next, last].map((key) =>
        work.run(async ({ tx }) => {
          await insert.run(tx, [key, 'v']);
          return (await read.first([slow])) !== undefined;
        }),
      ),
    ]);
    // On SQLite the slow write committed before the others ran. (PostgreSQL runs them at once.)
    if (sqlite()) assert.deepEqual(seen.slice(1), [true, true]);
    for (const key of [slow, next, last]) assert.deepEqual(await read.first([key]), { value: 'v' });
  });

  it('a write that fails is undone alone: the writes around it commit and are answered', async () => {
    const { work } = t().services;
    const { insert, read } = statements();
    const [a = '', b = '', c = '', d = ''] = keys(4);
    const runs = new Map<string, number>();
    const write = (key: string, fail: boolean) =>
      work.run(async ({ tx }) => {
        runs.set(key, (runs.get(key) ?? 0) + 1);
        await insert.run(tx, [key, 'v']);
        if (fail) throw new Error(`refused ${key}`);
        return key;
      });
    const outcomes = await Promise.allSettled([write(a, false), write(b, false), write(c, true), write(d, false)]);
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'fulfilled' ? o.value : String(o.reason))),
      [a, b, `Error: refused ${c}`, d],
    );
    assert.deepEqual(await Promise.all([a, b, c, d].map(async (key) => (await read.first([key])) !== undefined)), [
      true,
      true,
      false,
      true,
    ]);
    // Undoing the failed write's savepoint left the shared transaction to the others: none ran twice.
    assert.deepEqual(
      [a, b, c, d].map((key) => runs.get(key)),
      [1, 1, 1, 1],
    );
  });

  it('a refused write is answered only after the shared commit, which the writes before it may have decided', async () => {
    const { work } = t().services;
    const { insert, read } = statements();
    const [a = '', b = ''] = keys(2);
    const kept = work.run(({ tx }) => insert.run(tx, [a, 'v']));
    // On SQLite first() reads at once: whether the write before was committed when this one was refused.
    const refused = work
      .run(() => Promise.reject(new Error(`refused ${b}`)))
      .then(
        () => 'answered',
        async () => ((await read.first([a])) === undefined ? 'refused before the commit' : 'refused after it'),
      );
    // A third write keeps the shared transaction open for a turn of the event loop, so that an
    // answer given inside it would be heard before the commit.
    const third = work.run(() => new Promise<void>((resolve) => setImmediate(resolve)));
    await Promise.all([kept, third]);
    // PostgreSQL runs the two at once, each in its own transaction: when it is refused is not defined.
    assert.notEqual(await refused, 'answered');
    if (sqlite()) assert.equal(await refused, 'refused after it');
  });

  it('announces a write after the shared commit, when its rows are committed, and never a failed one', async () => {
    const { work, invalidations } = t().services;
    const { insert, read } = statements();
    const ks = keys(4);
    // On SQLite first() reads at once, so what it finds is what was committed when the key was heard.
    const heard = new Map<string, Promise<boolean>>();
    invalidations.listen(
      (key) => {
        if (ks.includes(key) && !heard.has(key))
          heard.set(
            key,
            read.first([key]).then((row) => row !== undefined),
          );
      },
      () => undefined,
    );
    const write = (key: string, fail: boolean) =>
      work.run(async ({ tx, touch }: Work) => {
        await insert.run(tx, [key, 'v']);
        touch(key);
        if (fail) throw new Error('refused');
      });
    await Promise.allSettled(ks.map((key, i) => write(key, i === 2)));
    const committed = await Promise.all([...heard].map(async ([key, row]) => ({ key, committed: await row })));
    assert.deepEqual(
      committed.sort((x, y) => x.key.localeCompare(y.key)),
      ks.filter((_, i) => i !== 2).map((key) => ({ key, committed: true })),
    );
  });

  it('when SQLite ends the shared transaction under a write, each write of it runs again alone, once', async () => {
    const { work, db } = t().services;
    const { insert, read } = statements();
    const ks = keys(5);
    const runs = new Map<string, number>();
    let ended = false;
    const outcomes = await Promise.allSettled(
      ks.map((key, i) =>
        work.run(async ({ tx }) => {
          runs.set(key, (runs.get(key) ?? 0) + 1);
          await insert.run(tx, [key, 'v']);
          // The second write refuses on its own; the fourth ends the transaction as SQLite does
          // on a full disk, the first time it runs.
          if (i === 1) throw new Error(`refused ${key}`);
          if (i === 3 && !ended && db.native.dialect === 'sqlite') {
            ended = true;
            db.native.writer.exec('ROLLBACK');
            throw new Error('database or disk is full');
          }
          return key;
        }),
      ),
    );
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'fulfilled' ? o.value : String(o.reason))),
      ks.map((key, i) => (i === 1 ? `Error: refused ${key}` : key)),
    );
    for (const [i, key] of ks.entries()) {
      assert.deepEqual(await read.first([key]), i === 1 ? undefined : { value: 'v' }, key);
    }
    // The first four were undone with the shared transaction and ran again (the refused one too:
    // its refusal might have rested on the writes undone; the fourth's failure was the
    // transaction's, not its own); the fifth had not run yet, and ran once.
    assert.deepEqual(
      ks.map((key) => runs.get(key)),
      sqlite() ? [2, 2, 2, 2, 1] : [1, 1, 1, 1, 1],
    );
  });

  it('a write that shares a transaction sees the writes before it: an edit after its bot left the group is refused', async () => {
    const { app, services } = t();
    const { work, messaging, credentials } = services;
    const [owner] = (await createUsers(app, 1)) as [TestUser];
    const bot = await createBot(app, owner.user_id);
    const groupId = uid('g');
    await applyEvents(app, [
      {
        type: 'group.upserted',
        data: { group_id: groupId, name: 'g', invite_url: `https://chat.example/g/${groupId}` },
      },
      { type: 'group.member.joined', data: { group_id: groupId, user_id: bot.bot_user_id } },
    ]);
    const sender = await credentials.byApiKey(bot.api_key);
    assert.ok(sender, 'the bot has a credential');
    const chat = { type: 'group', id: groupId } as const;
    const content = { objectName: 'text', rich: false, title: null, content: 'hello', replyMarkup: null };
    const { message } = await messaging.send(sender, {
      ...content,
      chat,
      mentionUserIds: [],
      idempotencyKey: undefined,
    });
    // A write holds the writer while the bot leaves and the edit arrive: those two share the next
    // transaction on SQLite, the leave first. (On PostgreSQL the leave commits before the edit runs.)
    let release = () => {};
    let started = () => {};
    const running = new Promise<void>((resolve) => (started = resolve));
    const held = work.run(
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
          started();
        }),
    );
    await running;
    const left = work.run(async ({ tx, touch }) => {
      await tx
        .deleteFrom('group_members')
        .where('group_id', '=', groupId)
        .where('user_id', '=', bot.bot_user_id)
        .execute();
      touch(memberKey(groupId, bot.bot_user_id));
    });
    const edited = sqlite()
      ? messaging.edit(sender, chat, message.messageId, { ...content, content: 'edited' })
      : left.then(() => messaging.edit(sender, chat, message.messageId, { ...content, content: 'edited' }));
    const refused = assert.rejects(edited, (e) => e instanceof AppError && e.def === Errors.notGroupMember);
    release();
    await Promise.all([held, left, refused]);
  });
});

it('on SQLite, a group whose transaction cannot begin answers each write with the failure', async () => {
  // A store whose connection cannot be had: every transaction fails before it begins. (Were the
  // group put back in line, the drain would loop on it for ever, and nothing here would be answered.)
  const sqlite = new SQLite(':memory:');
  const db: Db = {
    dialect: 'sqlite',
    k: new Kysely<DB>({
      dialect: new SqliteDialect({ database: () => Promise.reject(new Error('unable to open database file')) }),
    }),
    schema: undefined,
    native: { dialect: 'sqlite', reader: sqlite, writer: sqlite },
    close: () => Promise.resolve(),
  };
  const work = new UnitOfWork(db, new FakeClock(), new Invalidations(new LocalBus()));
  const outcomes = await Promise.allSettled([1, 2, 3].map((n) => work.run(() => Promise.resolve(n))));
  assert.deepEqual(
    outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : o.value)),
    Array.from({ length: 3 }, () => 'Error: unable to open database file'),
  );
  sqlite.close();
});
