// Starts a registered server in a child process (so the load generator never shares its event
// loop) and waits until it listens.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bundleOptions, nodeFlags } from '../../scripts/bundle.mjs';
import type { FromChild, ToChild } from './child.js';
import type { Params, ServerReport } from './types.js';

export interface ServerProcess {
  port: number;
  info: unknown;
  notes: string[];
  /** CPU time (user + system, microseconds) the server process has used so far. */
  cpuMicros(): Promise<number>;
  /** The server process's memory (process.memoryUsage(): rss, heapTotal, heapUsed, external...), in bytes. */
  memory(): Promise<NodeJS.MemoryUsage>;
  /** The server's report after the rounds (empty when it gives none). */
  report(): Promise<ServerReport>;
  stop(): Promise<void>;
}

const childSource = fileURLToPath(new URL('./child.ts', import.meta.url));
/** Inside the repository (bench/results/ is not in git), so the bundle's imports find node_modules. */
const buildDir = fileURLToPath(new URL('../results/build/', import.meta.url));

let compiledChild: Promise<string> | undefined;

/**
 * The child and the servers as one plain JavaScript file, built once per run with the options
 * scripts/build.mjs builds dist/server.js with (scripts/bundle.mjs), so a server runs as in
 * production and not under tsx, whose loader keeps every transpiled source and its source map.
 * One file per runner process (several runs may share the checkout), removed when it exits.
 */
function compiled(): Promise<string> {
  compiledChild ??= (async () => {
    const file = join(buildDir, `child-${process.pid}.mjs`);
    mkdirSync(buildDir, { recursive: true });
    await build({ ...bundleOptions, entryPoints: [childSource], outfile: file });
    process.once('exit', () => {
      rmSync(file, { force: true });
    });
    return file;
  })();
  return compiledChild;
}

/**
 * The V8 and Node settings the platform runs with (package.json `config.nodeFlags`, which
 * `npm run serve` and `npm start` pass to node), for every server the bench starts, the bare
 * baseline included: each measures the runtime production uses. BENCH_NODE_FLAGS replaces them
 * for an experiment ('' for Node's defaults).
 */
function serverFlags(): readonly string[] {
  const override = process.env.BENCH_NODE_FLAGS;
  return override === undefined ? nodeFlags : override.split(' ').filter(Boolean);
}

export interface SpawnOptions {
  /** Directory for V8 CPU profiles of the server (node --cpu-prof), when profiling. */
  cpuProfDir?: string;
  startTimeoutMs?: number;
}

function next(child: ChildProcess, type: FromChild['type'], timeoutMs: number): Promise<FromChild> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`server process: no "${type}" within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (m: FromChild) => {
      if (m.type === type || m.type === 'failed') {
        cleanup();
        if (m.type === 'failed') reject(new Error(`server process failed:\n${m.error}`));
        else resolve(m);
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`server process exited (${code}) before "${type}"`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

export async function startServer(name: string, params: Params, options: SpawnOptions = {}): Promise<ServerProcess> {
  // Profiles name the source files only under tsx (BENCH_TSX=1 asks for it without profiling).
  const tsx = options.cpuProfDir !== undefined || process.env.BENCH_TSX === '1';
  const execArgv = tsx ? ['--import', 'tsx'] : [];
  execArgv.push(...serverFlags());
  if (options.cpuProfDir !== undefined) {
    // One directory per server; Node names each thread's profile (the main thread's is the big one).
    const dir = join(options.cpuProfDir, name);
    mkdirSync(dir, { recursive: true });
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${dir}`);
  }
  const child = fork(tsx ? childSource : await compiled(), [name, JSON.stringify(params)], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const send = (m: ToChild) => child.send(m);
  let ready: FromChild;
  try {
    ready = await next(child, 'ready', options.startTimeoutMs ?? 600_000);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  if (ready.type !== 'ready') throw new Error('unexpected message');
  return {
    port: ready.port,
    info: ready.info,
    notes: ready.notes,
    async cpuMicros() {
      const usage = next(child, 'usage', 10_000);
      send({ type: 'usage' });
      const m = await usage;
      return m.type === 'usage' ? m.cpuMicros : NaN;
    },
    async memory() {
      const usage = next(child, 'usage', 10_000);
      send({ type: 'usage' });
      const m = await usage;
      if (m.type !== 'usage') throw new Error('unexpected message');
      return m.memory;
    },
    async report() {
      const answer = next(child, 'report', 120_000);
      send({ type: 'report' });
      const m = await answer;
      return m.type === 'report' ? { notes: m.notes, values: m.values } : { notes: [], values: {} };
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => {
        child.once('exit', () => {
          resolve();
        });
      });
      send({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
