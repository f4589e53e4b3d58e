// Races on PostgreSQL made deterministic: a transaction held open at a chosen point, and a wait
// until another statement is blocked by it (pg_blocking_pids), with no sleeping.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../src/db/types.js';

export interface HeldTransaction {
  /** Its backend's process id. */
  pid: number;
  /** Commits it (after `body`), and waits for the commit; safe to call more than once. */
  end: () => Promise<void>;
}

/** Runs `body` in a transaction and holds it open, its locks kept, until `end()`. */
export async function holdTransaction(
  k: Kysely<DB>,
  body: (tx: Transaction<DB>) => Promise<void>,
): Promise<HeldTransaction> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let ready!: (pid: number) => void;
  let failed!: (e: unknown) => void;
  const started = new Promise<number>((resolve, reject) => {
    ready = resolve;
    failed = reject;
  });
  const done = k.transaction().execute(async (tx) => {
    await body(tx);
    const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx);
    ready(rows[0]?.pid ?? -1);
    await released;
  });
  // A failure before it is held is the caller's at once; one at commit, end()'s.
  done.catch(failed);
  const pid = await started;
  return {
    pid,
    end: async () => {
      release();
      await done;
    },
  };
}

/**
 * Waits until `waiters` statements of other backends are blocked by `pid`'s locks (directly, or
 * queued behind one that is), or until `settled()` (a statement expected to wait ended first);
 * true when they were blocked.
 */
export async function blockedBy(k: Kysely<DB>, pid: number, settled: () => boolean, waiters = 1): Promise<boolean> {
  for (;;) {
    const { rows } = await sql<{ n: number }>`
      with recursive behind(pid) as (
        select a.pid from pg_stat_activity a where ${pid} = any(pg_blocking_pids(a.pid))
        union
        select a.pid from pg_stat_activity a join behind b on b.pid = any(pg_blocking_pids(a.pid))
      )
      select count(*)::int as n from behind`.execute(k);
    if ((rows[0]?.n ?? 0) >= waiters) return true;
    if (settled()) return false;
  }
}

/** A promise with a flag telling whether it has settled yet. */
export function tracked<T>(p: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  return { promise: p, settled: () => done };
}
