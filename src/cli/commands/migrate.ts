import { migrateStore, reachDb } from '../../bootstrap.js';
import { loadConfig } from '../../config.js';
import { json, parse, type Command } from '../io.js';

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'bring the database schema up to date',
  usage: 'migrate',
  async run(args, io) {
    const v = parse(this, args, {});
    const url = loadConfig(io.env).databaseUrl;
    const db = await reachDb(url);
    try {
      const applied = await migrateStore(db, url);
      if (v.json === true) io.stdout.write(json({ applied }));
      else
        io.stdout.write(applied.length === 0 ? 'schema up to date\n' : applied.map((m) => `applied ${m}\n`).join(''));
      return 0;
    } finally {
      await db.close();
    }
  },
};
