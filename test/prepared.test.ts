// Statements compiled once (src/db/prepared.ts): run() inside a transaction (on SQLite, straight on
// the writer's connection) answers exactly as outside one (through Kysely), and is part of the
// transaction: what it wrote is seen by the transaction and undone with it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import type { Kysely } from 'kysely';
import { arg, prepare } from '../src/db/prepared.js';
import type { DB } from '../src/db/types.js';
import { describeStores } from './helpers/app.js';

await describeStores('statements compiled once', (t) => {
  const statements = () => {
    const { db } = t().services;
    return {
      insert: prepare(db, db.k.insertInto('meta').values({ key: arg(0), value: arg(1) })),
      update: prepare(
        db,
        db.k
          .updateTable('meta')
          .set({ value: arg(1) })
          .where('key', '=', arg(0)),
      ),
      read: prepare(db, db.k.selectFrom('meta').select('value').where('key', '=', arg(0))),
    };
  };

  /** Insert, update, an update that matches nothing, and a read of the row, all through `tx`. */
  const exercise = async (tx: Kysely<DB>, key: string) => {
    const { insert, update, read } = statements();
    const inserted = await insert.run(tx, [key, 'a']);
    const updated = await update.run(tx, [key, 'b']);
    const missed = await update.run(tx, [`${key}-nobody`, 'b']);
    return {
      inserted: [inserted.numAffectedRows, inserted.rows],
      updated: [updated.numAffectedRows, updated.rows],
      missed: missed.numAffectedRows,
      read: (await read.run(tx, [key])).rows,
    };
  };
  const expected = { inserted: [1n, []], updated: [1n, []], missed: 0n, read: [{ value: 'b' }] };
  const newKey = () => `prepared-${randomBytes(4).toString('hex')}`;

  it('run() answers the same inside a transaction and outside one', async () => {
    const { work, db } = t().services;
    assert.deepEqual(await work.run(({ tx }) => exercise(tx, newKey())), expected, 'inside');
    assert.deepEqual(await exercise(db.k, newKey()), expected, 'outside');
  });

  it('run() inside a transaction is undone with it', async () => {
    const { work } = t().services;
    const { insert, update, read } = statements();
    const key = newKey();
    await work.run(({ tx }) => insert.run(tx, [key, 'kept']));
    await assert.rejects(
      work.run(async ({ tx }) => {
        await update.run(tx, [key, 'undone']);
        assert.deepEqual((await read.run(tx, [key])).rows, [{ value: 'undone' }], 'seen inside');
        assert.deepEqual(await read.first([key]), { value: 'kept' }, 'not seen outside before the commit');
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.deepEqual(await read.first([key]), { value: 'kept' });
  });
});
