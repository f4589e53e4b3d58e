// `npm run bench [-- <case>...]`: load tests with autocannon, each server in its own process.
// Settings (environment): BENCH_DURATION seconds per round (10), BENCH_ROUNDS (3), BENCH_WARMUP
// seconds (3), BENCH_CONNECTIONS (50), BENCH_CASES (comma list, or case names as arguments),
// BENCH_CPU_PROF=1 to write the servers' V8 CPU profiles to bench/results/profiles/.
// Prints a table per case, writes bench/results/latest.json, exits 1 when a check fails.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { cases } from './cases/index.js';
import { formatCase } from './lib/report.js';
import { runCase, type RunSettings } from './lib/runner.js';
import type { CaseResult } from './lib/types.js';
import { runMain } from './lib/main.js';

function setting(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!Number.isFinite(v) || v < min) throw new Error(`${name} must be a number >= ${min} (got "${raw}")`);
  return v;
}

async function main(): Promise<number> {
  const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
  const durationS = setting('BENCH_DURATION', 10, 1);
  const settings: RunSettings = {
    durationS,
    warmupS: setting('BENCH_WARMUP', Math.min(3, durationS), 0),
    rounds: Math.round(setting('BENCH_ROUNDS', 3, 1)),
    connections: Math.round(setting('BENCH_CONNECTIONS', 50, 1)),
    ...(process.env.BENCH_CPU_PROF === '1' ? { cpuProfDir: `${resultsDir}profiles` } : {}),
    log: (line) => process.stderr.write(`${line}\n`),
  };
  const wanted = [...process.argv.slice(2), ...(process.env.BENCH_CASES ?? '').split(',')].filter((n) => n !== '');
  const unknown = wanted.filter((n) => !cases.some((c) => c.name === n));
  if (unknown.length > 0) {
    process.stderr.write(`unknown case(s): ${unknown.join(', ')}; known: ${cases.map((c) => c.name).join(', ')}\n`);
    return 2;
  }
  const selected = wanted.length === 0 ? cases : cases.filter((c) => wanted.includes(c.name));

  const cpus = os.cpus();
  const machine = `${cpus[0]?.model ?? 'unknown CPU'} x ${cpus.length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`;
  process.stdout.write(
    `bench: ${machine}\n` +
      `  ${settings.connections} connections, warm-up ${settings.warmupS} s, ${settings.rounds} rounds of ${settings.durationS} s per target (alternating); ` +
      `load generator: autocannon in this process, each server in its own child process\n\n`,
  );

  const results: CaseResult[] = [];
  for (const c of selected) {
    process.stderr.write(`case ${c.name}\n`);
    const result = await runCase(c, settings);
    results.push(result);
    process.stdout.write(`${formatCase(result)}\n`);
  }

  mkdirSync(resultsDir, { recursive: true });
  const file = `${resultsDir}latest.json`;
  const recorded = {
    durationS: settings.durationS,
    warmupS: settings.warmupS,
    rounds: settings.rounds,
    connections: settings.connections,
    cpuProfile: settings.cpuProfDir !== undefined,
  };
  writeFileSync(
    file,
    `${JSON.stringify({ at: new Date().toISOString(), machine, command: process.argv.slice(1).join(' '), settings: recorded, cases: results }, null, 2)}\n`,
  );
  process.stdout.write(`results written to ${file}\n`);
  if (settings.cpuProfDir !== undefined) process.stdout.write(`server CPU profiles in ${settings.cpuProfDir}\n`);
  const failed = results.flatMap((r) => r.checks.filter((k) => !k.pass).map((k) => `${r.name}: ${k.name}`));
  if (failed.length > 0) process.stdout.write(`FAILED checks: ${failed.join('; ')}\n`);
  return failed.length > 0 ? 1 : 0;
}

runMain(main);
