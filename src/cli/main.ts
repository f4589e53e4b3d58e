// `npm run cli -- <command>`: operator chores against the store named by DATABASE_URL.
import { runCli } from './run.js';

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
