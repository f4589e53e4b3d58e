// Users' messages and button presses, as the application reports them: recorded, and handed to the
// delivery queue, which turns them into Updates for the bots the delivery rules allow, in the same
// transaction. A run of message.created goes together (./batch.ts, delivery's fanOutMessages); a
// message to the assistant, and a button press, one at a time (fanOutMessage, fanOutCallback).
import { Type } from 'typebox';
import { Id } from '../../lib/schemas.js';
import type { AssistantService, VettedUrls } from '../assistant/index.js';
import { fanOutCallback, fanOutMessage } from '../delivery/index.js';
import { defineBatchedEvent, defineEvent } from '../events/index.js';
import { findGroup } from '../groups/index.js';
import { usersExist } from '../users/index.js';
import { createMessagesTogether } from './batch.js';
import { MessageCreated, peopleOf, userMessage } from './message.js';
import * as repo from './repo.js';

/** The message events; a private message to the assistant is also a command to it. */
export function chatEvents(assistant: AssistantService) {
  const toAssistant = (d: MessageCreated) => d.chat_type === 'private' && d.to_user_id === assistant.userId;
  return [
    defineBatchedEvent(
      'message.created',
      MessageCreated,
      async (ctx, d, urls: VettedUrls | undefined) => {
        const { tx, now } = ctx;
        if (!(await usersExist(tx, peopleOf(d)))) return 'unknown_user';
        if (d.chat_type === 'group' && (await findGroup(tx, d.group_id)) === undefined) return 'unknown_group';
        if (await repo.chatMessageExists(tx, d.message_id)) return 'duplicate_message';
        const message = userMessage(d, now);
        await repo.insertChatMessage(tx, { ...message, mention_user_ids: JSON.stringify(message.mention_user_ids) });
        await fanOutMessage(ctx, message, () => repo.messageNumber(tx, d.message_id));
        if (toAssistant(d)) {
          await assistant.receive(
            ctx,
            { message_id: d.message_id, from_user_id: d.from_user_id, kind: d.kind, text: message.text },
            urls ?? new Map(),
          );
        }
        return undefined;
      },
      createMessagesTogether,
      {
        // Only messages to the assistant need outside work: the webhook URLs they name are looked up.
        prepare: (d): Promise<VettedUrls> =>
          toAssistant(d) ? assistant.prepare(d.text ?? '') : Promise.resolve(new Map()),
        // A message to the assistant is a command it runs in the event's transaction: on its own.
        alone: toAssistant,
      },
    ),
    defineEvent(
      'button.clicked',
      Type.Object({ callback_id: Id, message_id: Id, user_id: Id, data: Type.String({ maxLength: 4096 }) }),
      async (ctx, d) => {
        if (!(await usersExist(ctx.tx, [d.user_id]))) return 'unknown_user';
        return fanOutCallback(ctx, d);
      },
    ),
  ];
}
