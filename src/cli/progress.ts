// Progress of a long command on stderr: a bar on a terminal; off a terminal (a pipe, a log file,
// CI) a plain line every few seconds, so a long run never looks stuck and a short one stays quiet.
import { Writable } from 'node:stream';
import cliProgress from 'cli-progress';
import type { Out } from '../lib/out.js';

export interface Progress {
  increment(n: number): void;
  stop(): void;
}

/** Off a terminal, at most one line per this many milliseconds. */
export const LINE_EVERY_MS = 2_000;

/**
 * A bar on a terminal stream (process.stderr); cli-progress moves the cursor through node:readline,
 * which needs a real stream, so any other Out gets the lines.
 */
export function progress(stream: Out, label: string, total: number, now: () => number): Progress {
  return stream.isTTY === true && stream instanceof Writable
    ? bar(stream, label, total)
    : lines(stream, label, total, now);
}

function bar(stream: Writable, label: string, total: number): Progress {
  const b = new cliProgress.SingleBar(
    {
      stream,
      format: `${label} |{bar}| {percentage}% | {value}/{total} events | {eta_formatted} left`,
      etaBuffer: 50,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  b.start(total, 0);
  return {
    increment: (n) => {
      b.increment(n);
    },
    stop: () => {
      b.stop();
    },
  };
}

function lines(stream: Out, label: string, total: number, now: () => number): Progress {
  const started = now();
  let last = started;
  let done = 0;
  return {
    increment: (n) => {
      done += n;
      const at = now();
      if (at - last < LINE_EVERY_MS) return;
      last = at;
      const perSecond = Math.round(done / Math.max(0.001, (at - started) / 1000));
      stream.write(`${label}: ${done}/${total} events (${Math.floor((done / total) * 100)}%), ${perSecond} events/s\n`);
    },
    stop: () => undefined,
  };
}
