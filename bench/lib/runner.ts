// Runs one case: every target's server in its own process, a warm-up each, then rounds that
// alternate between targets (order reversed every other round), medians over the rounds.
import { runLoad } from './load.js';
import { startServer, type ServerProcess } from './spawn.js';
import { median, round2 } from './stats.js';
import type {
  BenchCase,
  CaseResult,
  LoadCase,
  Round,
  RunSettings,
  ServerReport,
  Target,
  TargetResult,
} from './types.js';

export type { RunSettings } from './types.js';

interface Running {
  target: Target;
  server: ServerProcess;
  rounds: Round[];
}

async function measure(r: Running, s: RunSettings, durationS: number): Promise<Round> {
  // Built before the CPU readings: what a target prepares in advance is not part of the load.
  const requests = r.target.requests(r.server.info, { durationS });
  const cpuBefore = await r.server.cpuMicros();
  const loadBefore = process.cpuUsage();
  const supply = r.target.supply?.(r.server.info);
  // A supply of one-shot requests is shared by the warm-up and the rounds in proportion to their time.
  const amount =
    supply === undefined
      ? undefined
      : Math.max(s.connections, Math.floor((supply * durationS) / (s.warmupS + s.rounds * s.durationS)));
  const load = await runLoad({
    port: r.server.port,
    requests,
    connections: s.connections,
    durationS,
    ...(amount !== undefined ? { amount } : {}),
  });
  const loadCpu = process.cpuUsage(loadBefore);
  const cpuAfter = await r.server.cpuMicros();
  return {
    // Not rounded to whole requests: the ingest cases send a few large batches per second.
    rps: round2(load.rps),
    p50: round2(load.p50),
    p99: round2(load.p99),
    max: round2(load.max),
    requests: load.requests,
    non2xx: load.non2xx,
    errors: load.errors,
    timeouts: load.timeouts,
    serverCpu: round2((cpuAfter - cpuBefore) / 1e6 / load.seconds),
    loadCpu: round2((loadCpu.user + loadCpu.system) / 1e6 / load.seconds),
  };
}

const summarize = (rounds: Round[]): Round => {
  const med = (key: keyof Round) => median(rounds.map((r) => r[key]));
  const sum = (key: keyof Round) => rounds.reduce((t, r) => t + r[key], 0);
  return {
    rps: round2(med('rps')),
    p50: round2(med('p50')),
    p99: round2(med('p99')),
    max: round2(Math.max(...rounds.map((r) => r.max))),
    requests: sum('requests'),
    non2xx: sum('non2xx'),
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    serverCpu: round2(med('serverCpu')),
    loadCpu: round2(med('loadCpu')),
  };
};

export async function runCase(c: BenchCase, s: RunSettings): Promise<CaseResult> {
  if ('run' in c) {
    const { notes, checks } = await c.run(s);
    return { name: c.name, description: c.description, targets: [], notes, checks };
  }
  return runLoadCase(c, s);
}

async function runLoadCase(c: LoadCase, s: RunSettings): Promise<CaseResult> {
  const running: Running[] = [];
  // Targets naming the same server and params share one process (and its seeded data).
  const servers = new Map<string, ServerProcess>();
  const reports = new Map<ServerProcess, ServerReport>();
  const settings = { ...s, connections: c.connections ?? s.connections };
  try {
    for (const target of c.targets) {
      const key = JSON.stringify([target.server, target.params ?? {}]);
      let server = servers.get(key);
      if (server === undefined) {
        s.log(`  starting ${target.label} (${target.server} server)...`);
        server = await startServer(target.server, target.params ?? {}, {
          ...(s.cpuProfDir !== undefined ? { cpuProfDir: s.cpuProfDir } : {}),
        });
        servers.set(key, server);
      }
      running.push({ target, server, rounds: [] });
    }
    if (s.warmupS > 0) {
      for (const r of running) {
        s.log(`  warm-up ${r.target.label} ${s.warmupS} s`);
        await measure(r, settings, s.warmupS);
      }
    }
    for (let i = 0; i < s.rounds; i++) {
      const order = i % 2 === 0 ? running : [...running].reverse();
      for (const r of order) {
        const m = await measure(r, settings, s.durationS);
        r.rounds.push(m);
        s.log(
          `  round ${i + 1}/${s.rounds} ${r.target.label}: ${m.rps} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms` +
            (m.non2xx + m.errors > 0 ? `, ${m.non2xx} non-2xx, ${m.errors} errors` : ''),
        );
      }
    }
    for (const server of new Set(running.map((r) => r.server))) reports.set(server, await server.report());
  } finally {
    await Promise.all([...servers.values()].map((server) => server.stop()));
  }
  const targets: TargetResult[] = running.map((r) => {
    const report = reports.get(r.server);
    return {
      label: r.target.label,
      server: r.target.server,
      params: r.target.params ?? {},
      notes: [...r.server.notes, ...(report?.notes ?? [])],
      rounds: r.rounds,
      median: summarize(r.rounds),
      ...(report !== undefined && Object.keys(report.values).length > 0 ? { report: report.values } : {}),
    };
  });
  return {
    name: c.name,
    description: c.description,
    targets,
    notes: [],
    checks: c.checks(Object.fromEntries(targets.map((t) => [t.label, t]))),
  };
}
