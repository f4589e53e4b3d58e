// Dispatches `cli <command> [options]`; returns the exit code (0 done, 1 failed, 2 bad usage).
import { StartupError } from '../bootstrap.js';
import { ConfigError } from '../config.js';
import { AppError } from '../errors.js';
import { backupCommand } from './commands/backup.js';
import { createAppCommand } from './commands/create-app.js';
import { createBotCommand } from './commands/create-bot.js';
import { ledgerCheckCommand } from './commands/ledger-check.js';
import { migrateCommand } from './commands/migrate.js';
import { seedCommand } from './commands/seed.js';
import { UsageError, type Command, type Io } from './io.js';

export const commands: readonly Command[] = [
  migrateCommand,
  seedCommand,
  createAppCommand,
  createBotCommand,
  ledgerCheckCommand,
  backupCommand,
];

const find = (name: string | undefined) => commands.find((c) => c.name === name);

export function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length), 'help'.length);
  return [
    'Usage: npm run cli -- <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    `  ${'help'.padEnd(width)}  this text, or \`help <command>\` for one command`,
    '',
    ...commands.map((c) => `  ${c.usage.split('\n').join('\n  ')}`),
    '',
    'Every command takes --json: stdout then holds one JSON document and nothing else (messages go to stderr).',
    'Run it as `open-platform <command>` (package.json "bin") or `npm run --silent cli -- <command>`:',
    "plain `npm run cli` prints npm's own banner on stdout first.",
    '',
    'Settings come from the environment, as for the server (DATABASE_URL, ENCRYPTION_KEY or KEY_FILE, ...).',
    '',
  ].join('\n');
}

const commandUsage = (c: Command): string => `Usage: npm run cli -- ${c.usage}\n`;

export async function runCli(argv: readonly string[], io: Io): Promise<number> {
  const [name, ...args] = argv;
  if (name === 'help' || name === '--help' || name === '-h') {
    const [topic] = args;
    const one = find(topic);
    if (topic !== undefined && one === undefined) {
      io.stderr.write(`unknown command "${topic}"\n\n${usage()}`);
      return 2;
    }
    io.stdout.write(one === undefined ? usage() : commandUsage(one));
    return 0;
  }
  const command = find(name);
  if (command === undefined) {
    io.stderr.write(`${name === undefined ? 'no command given' : `unknown command "${name}"`}\n\n${usage()}`);
    return 2;
  }
  try {
    return await command.run(args, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`${e.message}\n\n${e.command === undefined ? usage() : commandUsage(e.command)}`);
      return 2;
    }
    if (e instanceof ConfigError || e instanceof StartupError) {
      io.stderr.write(`${e.message}\n`);
      return 1;
    }
    if (e instanceof AppError) {
      io.stderr.write(`error: ${e.def.id}: ${e.message}\n`);
      return 1;
    }
    io.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return 1;
  }
}
