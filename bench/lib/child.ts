// Child process entry: starts one registered server and talks to the runner over IPC.
//   argv: <server name> <params as JSON>
//   sends {type:'ready', port, info, notes} | {type:'failed', error}; answers {type:'usage'} with
//   the process's CPU time and memory; {type:'report'} with the server's report after the rounds (empty when
//   it has none); {type:'stop'} closes the server and exits.
import { servers } from '../servers/index.js';
import type { Params, ServerReport } from './types.js';

export type ToChild = { type: 'usage' } | { type: 'report' } | { type: 'stop' };
export type FromChild =
  | { type: 'ready'; port: number; info: unknown; notes: string[] }
  | { type: 'failed'; error: string }
  | { type: 'usage'; cpuMicros: number; memory: NodeJS.MemoryUsage }
  | ({ type: 'report' } & ServerReport);

const send = (m: FromChild) => process.send?.(m);

async function main(): Promise<void> {
  const [name = '', raw = '{}'] = process.argv.slice(2);
  const kind = servers[name];
  if (kind === undefined) throw new Error(`unknown server "${name}"`);
  const started = await kind.start(JSON.parse(raw) as Params);
  process.on('message', (m: ToChild) => {
    if (m.type === 'usage') {
      const cpu = process.cpuUsage();
      send({ type: 'usage', cpuMicros: cpu.user + cpu.system, memory: process.memoryUsage() });
    } else if (m.type === 'report') {
      void (started.report?.() ?? Promise.resolve({ notes: [], values: {} })).then(
        (r) => send({ type: 'report', ...r }),
        (e: unknown) => send({ type: 'failed', error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
      );
    } else {
      void started.close().finally(() => process.exit(0));
    }
  });
  process.on('disconnect', () => {
    void started.close().finally(() => process.exit(0));
  });
  send({ type: 'ready', port: started.port, info: started.info, notes: started.notes });
}

main().catch((e: unknown) => {
  send({ type: 'failed', error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  process.exit(1);
});
