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
  private queue: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly work: UnitOfWork,
    private readonly dialect: Dialect,
  ) {}

  /** Writes `row` with the next message number, which it answers once the row is committed. */
  write(row: UnnumberedRow): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ row, resolve, reject });
      if (this.queue.length >= MAX_BATCH) {
        void this.flush();
      } else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    this.scheduled = false;
    try {
      // Numbered in the order the sends arrived, as drawing one at a time would number them.
      const numbers = await this.work.run(async ({ tx }) => {
        const drawn = await nextMessageNumbers(tx, this.dialect, batch.length);
        await insertOutbox(
          tx,
          batch.map((p, i) => ({ ...p.row, telegram_message_id: numberAt(drawn, i) })),
        );
        return drawn;
      });
      batch.forEach((p, i) => {
        p.resolve(numberAt(numbers, i));
      });
    } catch (e) {
      for (const p of batch) p.reject(e);
    }
  }
}

function numberAt(numbers: readonly number[], i: number): number {
  const n = numbers[i];
  if (n === undefined) throw new Error(`message number ${i} was not drawn`);
  return n;
}
