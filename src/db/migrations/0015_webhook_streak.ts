// A bot's run of failed webhook attempts, on the bot's row: the backoff followed each Update's own
// attempts only. For a receiver that stays down, the head Update was retried on the schedule (1 s
// doubling to 10 minutes) for its 24 hours, but every Update behind it then became the head with
// no attempts yet, was tried at once and at 1, 2, 4 ... s, and was dropped within a minute: about
// 8,400 attempts a day per dead bot instead of about 144, each logged with a copy of its Update.
// `webhook_fail_streak` counts the bot's consecutive failed attempts (null or 0: none since its
// last success or its Webhook URL was set), and `webhook_not_before` is when its next attempt may
// start (null: at once); both are set by a failure, cleared by a success and by a new webhook.
import type { Kysely } from 'kysely';

export function webhookStreakMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('bots').addColumn('webhook_fail_streak', 'integer').execute();
      await db.schema.alterTable('bots').addColumn('webhook_not_before', 'bigint').execute();
    },
  };
}
