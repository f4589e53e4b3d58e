// A process that opens the SQLite store at argv[2], says "open", migrates once told "go" on stdin,
// then prints the migrations it applied as JSON: the store-faults test starts two at once.
import { once } from 'node:events';
import { openDb } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';

const db = await openDb(`sqlite:${process.argv[2] ?? ''}`);
process.stdout.write('open\n');
await once(process.stdin, 'data');
try {
  process.stdout.write(`applied ${JSON.stringify(await migrate(db))}\n`);
} finally {
  await db.close();
  process.stdin.destroy();
}
