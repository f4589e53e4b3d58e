// Users' messages and button presses, as the application reports them: recorded, and handed to the
// delivery queue (delivery's fanOutMessage and fanOutCallback), which turns them into Updates for
// the bots the delivery rules allow, in the same transaction.
import { Type } from 'typebox';
import { Id } from '../../lib/schemas.js';
import type { AssistantService, VettedUrls } from '../assistant/index.js';
import { fanOutCallback, fanOutMessage } from '../delivery/index.js';
import { defineEvent } from '../events/index.js';
import { findGroup } from '../groups/index.js';
import { usersExist } from '../users/index.js';
import * as repo from './repo.js';

const common = {
  message_id: Id,
  from_user_id: Id,
  kind: Type.String({ minLength: 1, maxLength: 64 }),
  text: Type.Optional(Type.String({ maxLength: 20_000 })),
  mention_user_ids: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
};

/** The message events; a private message to the assistant is also a command to it. */
export function chatEvents(assistant: AssistantService) {
  const toAssistant = (d: { chat_type: string; to_user_id?: string }) =>
    d.chat_type === 'private' && d.to_user_id === assistant.userId;
  return [
    defineEvent(
      'message.created',
      Type.Union([
        Type.Object({ ...common, chat_type: Type.Literal('group'), group_id: Id }, { additionalProperties: false }),
        Type.Object({ ...common, chat_type: Type.Literal('private'), to_user_id: Id }, { additionalProperties: false }),
      ]),
      async (ctx, d, urls: VettedUrls | undefined) => {
        const { tx, now } = ctx;
        const mentions = d.mention_user_ids ?? [];
        const people = [d.from_user_id, ...mentions, ...(d.chat_type === 'private' ? [d.to_user_id] : [])];
        if (!(await usersExist(tx, people))) return 'unknown_user';
        if (d.chat_type === 'group' && (await findGroup(tx, d.group_id)) === undefined) return 'unknown_group';
        if (await repo.chatMessageExists(tx, d.message_id)) return 'duplicate_message';
        const message = {
          message_id: d.message_id,
          chat_type: d.chat_type,
          from_user_id: d.from_user_id,
          group_id: d.chat_type === 'group' ? d.group_id : null,
          to_user_id: d.chat_type === 'private' ? d.to_user_id : null,
          kind: d.kind,
          text: d.text ?? '',
          mention_user_ids: mentions,
          created_at: now,
        };
        await repo.insertChatMessage(tx, { ...message, mention_user_ids: JSON.stringify(mentions) });
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
      // Only messages to the assistant need outside work: the webhook URLs they name are looked up.
      (d): Promise<VettedUrls> => (toAssistant(d) ? assistant.prepare(d.text ?? '') : Promise.resolve(new Map())),
    ),
    defineEvent(
      'button.clicked',
      Type.Object(
        { callback_id: Id, message_id: Id, user_id: Id, data: Type.String({ maxLength: 4096 }) },
        { additionalProperties: false },
      ),
      async (ctx, d) => {
        if (!(await usersExist(ctx.tx, [d.user_id]))) return 'unknown_user';
        return fanOutCallback(ctx, d);
      },
    ),
  ];
}
