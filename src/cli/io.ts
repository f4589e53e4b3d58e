// What every command shares: where it writes, the settings it reads, argument parsing helpers,
// and opening the platform (settings, store, migrations, services) for the length of a command.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { boot } from '../bootstrap.js';
import { loadConfig } from '../config.js';
import type { Out } from '../lib/out.js';
import type { Services } from '../services.js';

export interface Io {
  env: Record<string, string | undefined>;
  /** Results only (JSON with --json); everything else goes to stderr. */
  stdout: Out;
  stderr: Out;
  /** Milliseconds, for progress lines; performance.now() unless a test drives it. */
  now?: () => number;
}

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Synopsis and options, for `help <command>` and usage errors. */
  usage: string;
  run(args: string[], io: Io): Promise<number>;
}

/** Bad usage: the message and the command's usage go to stderr, exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: Command,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Every command takes --json: its result on stdout is then one JSON document and nothing else. */
const common = { json: { type: 'boolean' } } as const;

/** node:util parseArgs, strict, no positionals; its errors become usage errors. */
export function parse<O extends Options>(command: Command, args: string[], options: O) {
  return parseWith(command, args, options, false).values;
}

/** parse() for a command that also takes positional arguments. */
export function parseWith<O extends Options>(command: Command, args: string[], options: O, allowPositionals: boolean) {
  try {
    return parseArgs({ args, options: { ...common, ...options }, strict: true, allowPositionals });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e), command);
  }
}

export function required(command: Command, value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${flag} is required`, command);
  return value;
}

/** A whole number within [min, max], or `fallback` when the option is absent. */
export function wholeNumber(
  command: Command,
  value: string | undefined,
  flag: string,
  min: number,
  max: number,
  fallback?: number,
): number {
  if (value === undefined) {
    if (fallback === undefined) throw new UsageError(`--${flag} is required`, command);
    return fallback;
  }
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${flag} must be a whole number from ${min} to ${max} (got "${value}")`, command);
  }
  return n;
}

/** Boots the platform from the environment's settings, runs `body`, and always closes the store. */
export async function withServices<T>(io: Io, body: (services: Services) => Promise<T>): Promise<T> {
  const booted = await boot(loadConfig(io.env));
  try {
    if (booted.adminToken.generated !== undefined) {
      // The first start of a store generates the operator token; it is shown once, here.
      io.stderr.write(`ADMIN_TOKEN (shown once; set ADMIN_TOKEN to choose your own): ${booted.adminToken.generated}\n`);
    }
    return await body(booted.services);
  } finally {
    await booted.close();
  }
}

export const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
