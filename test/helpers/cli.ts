// The operator CLI run in-process (src/cli/run.ts), with what it prints captured.
import type { Io } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/run.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `argv` with `io`'s settings (env, clock) and answers the exit code and both outputs. */
export async function runCaptured(argv: string[], io: Omit<Io, 'stdout' | 'stderr'>): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    ...io,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}
