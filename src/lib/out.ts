// Where a command or the server writes text for a person: process.stdout, process.stderr, or a
// test's collector.

export interface Out {
  write(text: string): unknown;
  /**
   * True on a terminal, where a person is looking (process.stdout.isTTY): credentials are shown and
   * the progress bar drawn only there.
   */
  readonly isTTY?: boolean;
}
