// The lease of an Update whose webhook attempt is under way, kept apart from its next attempt time:
// `next_attempt_at` alone says when it is due, which a lease and a backoff both push back, so a
// redelivery could not tell an attempt in flight from one waiting out its backoff. It made a
// leased Update due again, and another dispatcher (instance) sent it a second time in parallel.
// Null when no attempt holds it; Updates queued before this migration hold none.
import type { Kysely } from 'kysely';

export function deliveryLeaseMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('updates').addColumn('leased_until', 'bigint').execute();
    },
  };
}
