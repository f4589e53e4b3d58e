// Group commit for the outbox: sends that arrive together are written by one INSERT in one
// transaction, and each send is answered only after that commit. One commit per send would make
// the store's commit the ceiling of sends per second.
import type { Db } from '../../db/connect.js';
import { insertOutbox, type NewOutboxRow } from './repo.js';

const MAX_BATCH = 500;

interface Pending {
  row: NewOutboxRow;
  resolve(): void;
  reject(e: unknown): void;
}

export class OutboxWriter {
  private queue: Pending[] = [];
  private scheduled = false;

  constructor(private readonly db: Db) {}

  write(row: NewOutboxRow): Promise<void> {
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
      await insertOutbox(
        this.db.k,
        batch.map((p) => p.row),
      );
      for (const p of batch) p.resolve();
    } catch (e) {
      for (const p of batch) p.reject(e);
    }
  }
}
