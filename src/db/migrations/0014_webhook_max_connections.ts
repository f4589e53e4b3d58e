// The Telegram surface's max_connections, on the bot's webhook row: setWebhook took it and threw it
// away, and getWebhookInfo said 1 whatever was asked. Telegram keeps the value (brought into 1 to
// 100) and reports it; here it is kept and reported the same way, while deliveries still go one at a
// time, which is within any maximum. Null: not given through the Telegram setWebhook (the native
// setWebhook takes none), reported as Telegram's default of 40; cleared with the webhook. Webhooks
// set before this migration hold none.
import type { Kysely } from 'kysely';

export function webhookMaxConnectionsMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('bots').addColumn('webhook_max_connections', 'integer').execute();
    },
  };
}
