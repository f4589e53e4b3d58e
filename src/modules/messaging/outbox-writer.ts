// Group commit for the outbox: sends that arrive together are numbered and written in one
// transaction (one draw of Telegram message numbers, one INSERT), and each send is answered only
// after that commit. One commit per send, or a number drawn in a transaction of its own, would
// make the store's commit the ceiling of sends per second.
import type { Dialect } from '../../db/connect.js';
import type { UnitOfWork } from '../../db/work.js';
import { nextMessageNumbers } from './numbers.js';
import { insertOutbox, type NewOutboxRow } from './repo.js';

const MAX_BATCH = 500;

/** An outbox row before the writer draws its Telegram message number. */
export type UnnumberedRow = Omit<NewOutboxRow, 'telegram_message_id'>;

interface Pending {
  row: UnnumberedRow;
  resolve(telegramMessageId: number): void;
  reject(e: unknown): void;
}

export class OutboxWriter {
  private readonly queue: Pending[] = [];
  /** Whether a write of the queue has been asked of the unit of work and has not yet taken its rows. */
  private asked = false;

  constructor(
    private readonly work: UnitOfWork,
    private readonly dialect: Dialect,
  ) {}

  /** Writes `row` with the next message number, which it answers once the row is committed. */
  write(row: UnnumberedRow): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ row, resolve, reject });
      if (!this.asked) {
        this.asked = true;
        void this.flush();
      }
    });
  }

  /**
   * One transaction for the sends queued when it starts: the unit of work starts it no sooner
   * than the end of this turn of the event loop (on PostgreSQL, once it has a connection), so the
   * sends read in the same turn are all in it, without a wait of the writer's own.
   */
  private async flush(): Promise<void> {
    // Taken once: if the unit of work runs the transaction again, it writes the same rows.
    let batch: Pending[] | undefined;
    try {
      // Numbered in the order the sends arrived, as drawing one at a time would number them.
      const numbers = await this.work.run(async ({ tx }) => {
        batch ??= this.take();
        const rows = batch.map((p) => p.row);
        const drawn = await nextMessageNumbers(tx, this.dialect, rows.length);
        await insertOutbox(
          tx,
          rows.map((row, i) => ({ ...row, telegram_message_id: numberAt(drawn, i) })),
        );
        return drawn;
      });
      (batch ?? []).forEach((p, i) => {
        p.resolve(numberAt(numbers, i));
      });
    } catch (e) {
      batch ??= this.take();
      for (const p of batch) p.reject(e);
    }
  }

  /** The next batch off the queue; what is left (past MAX_BATCH) is asked of the unit of work next. */
  private take(): Pending[] {
    const batch = this.queue.splice(0, MAX_BATCH);
    this.asked = this.queue.length > 0;
    if (this.asked) void this.flush();
    return batch;
  }
}

function numberAt(numbers: readonly number[], i: number): number {
  const n = numbers[i];
  if (n === undefined) throw new Error(`message number ${i} was not drawn`);
  return n;
}
