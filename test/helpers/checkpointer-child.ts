// A process that starts its store's checkpoint worker, closes the store and prints "closed": with
// nothing else keeping the process alive, closing must still wait for the worker and the store.
import { manual, startWorker, walStore } from './wal-store.js';

const { options, clock } = manual();
const { db, cp } = await walStore(process.argv[2] ?? '', options);
process.stdout.write(`running ${String(await startWorker(db, cp, clock))}\n`);
await db.close();
process.stdout.write('closed\n');
