// Real processes for start-up and outage tests: the server (through tsx) and a private Redis,
// each with its output collected and bounded waits on it.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('../../src/server.ts', import.meta.url));

export class Proc {
  out = '';
  readonly exited: Promise<number | null>;
  private readonly waiters = new Set<() => void>();

  constructor(readonly child: ChildProcess) {
    const collect = (chunk: Buffer) => {
      this.out += chunk.toString('utf8');
      for (const w of this.waiters) w();
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.exited = once(child, 'close').then(() => child.exitCode);
  }

  /** Resolves when the output (stdout and stderr) matches `pattern`; rejects if the process ends first. */
  waitFor(pattern: RegExp): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!pattern.test(this.out)) return;
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
      check();
      void this.exited.then(() => {
        if (this.waiters.delete(check)) reject(new Error(`exited before ${String(pattern)}:\n${this.out}`));
      });
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}

/** The server as `npm run serve` starts it, with only `env` for settings; stdout and stderr kept apart. */
export function startServer(env: Record<string, string>): { proc: Proc; stdout: () => string; stderr: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  return { proc: new Proc(child), stdout: () => stdout, stderr: () => stderr };
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A Redis of the test's own, without persistence, on `port`. */
export async function startRedis(port: number): Promise<Proc> {
  const proc = new Proc(
    spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  await proc.waitFor(/Ready to accept connections/);
  return proc;
}

/** Polls `check` until it holds (bounded by the test's timeout). */
export async function until(check: () => Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
