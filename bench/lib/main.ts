// The end of a bench entry point: its exit code, or 1 with the stack when it throws.

/** Runs `main` and sets the process's exit code from it; an error is written to stderr, exit code 1. */
export function runMain(main: () => Promise<number>): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
