// The shapes shared by the bench's cases, servers and runner.
import type autocannon from 'autocannon';
import type { LoadResult } from './load.js';

export type Params = Record<string, string | number | boolean>;

/** A number parameter, or `fallback` when it is absent (or not a number). */
export const numParam = (p: Params, key: string, fallback: number): number => {
  const v = p[key];
  return typeof v === 'number' ? v : fallback;
};

/** A server running in its own process (bench/lib/child.ts), listening on 127.0.0.1. */
export interface StartedServer {
  port: number;
  /** Whatever the load generator needs to build requests (credentials, ids); must be JSON. */
  info: unknown;
  /** Lines describing the setup, printed with the results (settings, data loaded). */
  notes: string[];
  /** What the server finds after the last round (e.g. consistency checks of its store). */
  report?(): Promise<ServerReport>;
  close(): Promise<void>;
}

/** A server's account of itself after the rounds: lines for the table and figures for `checks`. */
export interface ServerReport {
  notes: string[];
  values: Record<string, number>;
}

/** A kind of server, registered in bench/servers/index.ts; `start` runs in the child process. */
export interface ServerKind {
  name: string;
  start(params: Params): Promise<StartedServer>;
}

/** The load a Target's requests are for. */
export interface LoadRun {
  durationS: number;
}

/** One thing measured: a server and the requests sent to it. */
export interface Target {
  /** Short label in tables and in `checks` (unique within its case). */
  label: string;
  /** Name of a ServerKind. */
  server: string;
  params?: Params;
  /**
   * Runs in the load generator before each warm-up and round (outside its timing): the requests,
   * built per request through `setupRequest`. `run` says how long the coming load lasts, for
   * requests prepared in advance (lib/signing.ts).
   */
  requests(info: unknown, run: LoadRun): autocannon.Request[];
  /**
   * For requests that each use up something the server prepared (one-time tokens): how many there
   * are. The warm-up and each round then send a fixed share of them (autocannon `amount`, in
   * proportion to their durations) instead of running for a duration, so each is sent once, and
   * req/s is requests / elapsed seconds.
   */
  supply?(info: unknown): number;
}

/** What one round against one target measured: the load's measures, then the CPU shares. */
export interface Round extends Omit<LoadResult, 'seconds'> {
  /** Share of one core the server process used during the round (1 = one full core). */
  serverCpu: number;
  /** The same for the load generator (this process): near 1 means it, not the server, is the limit. */
  loadCpu: number;
}

export interface TargetResult {
  label: string;
  server: string;
  params: Params;
  notes: string[];
  rounds: Round[];
  /** Medians over the rounds; non2xx, errors and timeouts are summed. */
  median: Round;
  /** The server's report after the rounds (ServerReport.values), when it gives one. */
  report?: Record<string, number>;
}

export interface Check {
  name: string;
  value: number;
  /** The requirement in words, e.g. ">= 0.5". */
  limit: string;
  pass: boolean;
}

/** A case of autocannon rounds against targets, judged over the medians. */
export interface LoadCase {
  name: string;
  description: string;
  /** Connections for this case, when it differs from BENCH_CONNECTIONS (latency cases use fewer). */
  connections?: number;
  targets: Target[];
  checks(results: Record<string, TargetResult>): Check[];
}

/** What `npm run bench` was asked for (environment settings). */
export interface RunSettings {
  durationS: number;
  warmupS: number;
  rounds: number;
  connections: number;
  /** When set, servers run with --cpu-prof and write their profiles here. */
  cpuProfDir?: string;
  log(line: string): void;
}

/**
 * A case that drives its own traffic instead of autocannon rounds (long polls held open, several
 * instances): it starts its servers, runs for about `durationS` and stops them itself.
 */
export interface ScriptedCase {
  name: string;
  description: string;
  run(s: RunSettings): Promise<{ notes: string[]; checks: Check[] }>;
}

export type BenchCase = LoadCase | ScriptedCase;

export interface CaseResult {
  name: string;
  description: string;
  /** Empty for a scripted case. */
  targets: TargetResult[];
  /** Lines describing a scripted case's setup and what it saw. */
  notes: string[];
  checks: Check[];
}
