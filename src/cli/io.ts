// What every command shares: where it writes, the settings it reads, argument parsing helpers,
// and opening the platform (settings, store, migrations, services) for the length of a command.
import { existsSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { boot, StartupError } from '../bootstrap.js';
import { loadConfig, type Config } from '../config.js';
import type { Out } from '../lib/out.js';
import { announceAdminToken } from '../modules/admin/index.js';
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

/** The SQLite file of `sqlite:<file>`; undefined for PostgreSQL and for `sqlite::memory:`. */
export function sqliteFile(databaseUrl: string): string | undefined {
  if (!databaseUrl.startsWith('sqlite:')) return undefined;
  const file = databaseUrl.slice('sqlite:'.length);
  return file === ':memory:' ? undefined : file;
}

/**
 * Refuses a SQLite store that is not there. Opening one creates it (and a key file, and an
 * operator token), so a wrong DATABASE_URL or working folder would otherwise answer from an empty
 * store: a restored ledger would "check out" with nothing in it.
 */
export function existingStore(config: Config): void {
  const file = sqliteFile(config.databaseUrl);
  if (file !== undefined && !existsSync(file)) {
    throw new StartupError(`DATABASE_URL: no database at ${file} (run migrate to create one)`);
  }
}

/** Boots the platform from the environment's settings, runs `body`, and always closes the store. */
async function withBooted<T>(io: Io, create: boolean, body: (services: Services) => Promise<T>): Promise<T> {
  const config = loadConfig(io.env);
  if (!create) existingStore(config);
  const booted = await boot(config);
  try {
    if (booted.adminToken.generated !== undefined) {
      // The first start of a store generates the operator token; it is shown once, here, and as
      // the server shows it: only to a person at a terminal, never into a CI or cron log.
      announceAdminToken(io.stderr, io.stderr, booted.adminToken.generated);
    }
    return await body(booted.services);
  } finally {
    await booted.close();
  }
}

/** Runs `body` on the platform's services; a SQLite store that is not there is refused (existingStore). */
export const withServices = <T>(io: Io, body: (services: Services) => Promise<T>): Promise<T> =>
  withBooted(io, false, body);

/** withServices for the commands that make a new store when there is none (seed). */
export const withNewOrExistingServices = <T>(io: Io, body: (services: Services) => Promise<T>): Promise<T> =>
  withBooted(io, true, body);

export const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
