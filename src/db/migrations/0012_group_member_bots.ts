// Which members of a group are bots, on the member row: `is_bot`, copied from users.is_bot when
// the row is inserted (groups/repo.ts addMember), with a partial index of each group's bot members.
// A group message's fan-out (delivery/repo.ts botsInGroup) read every member row of the group to
// find its few bots: 16.5 ms a message in a 100,000-member group on SQLite's one writer. A user's
// is_bot is never changed after its row is made, and a bot's user row is made with the bot
// (apps createBotIn), so the copy stays true. Members added before this migration are marked here.
import { sql, type Kysely } from 'kysely';

export function groupMemberBotsMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // A bot whose user row predates it (an id drawn for a bot that an existing user had: its
      // upsert kept is_bot 0) was reached through `bots` alone; marked a bot, it keeps being reached.
      await sql`update users set is_bot = 1
        where is_bot = 0 and user_id in (select bot_user_id from bots)`.execute(db);
      await db.schema
        .alterTable('group_members')
        .addColumn('is_bot', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`update group_members set is_bot = 1
        where user_id in (select user_id from users where is_bot = 1)`.execute(db);
      // The queries' `is_bot = 1` must be a literal for either planner to match the predicate.
      await db.schema
        .createIndex('group_members_bots')
        .on('group_members')
        .columns(['group_id', 'user_id'])
        .where(sql.ref('is_bot'), '=', sql.lit(1))
        .execute();
    },
  };
}
