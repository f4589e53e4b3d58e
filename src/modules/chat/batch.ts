// Runs of message.created applied together: the users, groups and message ids the run names read
// once, the events played in order in memory (refusals and duplicates within the run included),
// the new messages recorded in one statement, then handed to delivery's fanOutMessages together.
import { fanOutMessages } from '../delivery/index.js';
import type { BatchContext, Outcome } from '../events/index.js';
import type { UserMessage } from '../messaging/index.js';
import { findUsers } from '../users/index.js';
import { type MessageCreated, peopleOf, userMessage } from './message.js';
import * as repo from './repo.js';

export async function createMessagesTogether(ctx: BatchContext, events: readonly MessageCreated[]): Promise<Outcome[]> {
  const users = new Map((await findUsers(ctx, new Set(events.flatMap(peopleOf)))).map((u) => [u.user_id, u]));
  const groups = await repo.groupTitles(
    ctx,
    events.flatMap((d) => (d.chat_type === 'group' ? [d.group_id] : [])),
  );
  const taken = await repo.existingMessages(
    ctx,
    events.map((d) => d.message_id),
  );
  const recorded: UserMessage[] = [];
  const outcomes = events.map((d): Outcome => {
    if (!peopleOf(d).every((id) => users.has(id))) return 'unknown_user';
    if (d.chat_type === 'group' && !groups.has(d.group_id)) return 'unknown_group';
    if (taken.has(d.message_id)) return 'duplicate_message';
    taken.add(d.message_id);
    recorded.push(userMessage(d, ctx.now));
    return undefined;
  });
  if (recorded.length === 0) return outcomes;
  await fanOutMessages(ctx, await repo.insertChatMessages(ctx, recorded), { users, groupTitles: groups });
  return outcomes;
}
