// getChat, getChatMember, getChatMemberCount: groups and private chats in Telegram's shapes.
import { Type } from 'typebox';
import { AppError, Errors } from '../../../errors.js';
import type { GroupRole } from '../../../db/types.js';
import { IdParam, resolveChat, resolveUser } from '../chats.js';
import { badRequest } from '../errors.js';
import { method, type MethodCall } from '../method.js';
import { Directory } from '../presenter.js';
import * as repo from '../repo.js';
import { UserSchema } from '../schema.js';
import type { ChatRef } from '../../messaging/index.js';

/** A group the bot is in (Telegram answers 403 for a group it is not in). */
async function groupOfBot(call: MethodCall, chat: ChatRef & { type: 'group' }) {
  const [group] = await repo.groupsByIds(call.s.db.k, [chat.id]);
  if (group === undefined) throw badRequest('chat not found');
  if ((await repo.roleOf(call.s.db.k, chat.id, call.botId)) === undefined) throw new AppError(Errors.notGroupMember);
  return group;
}

/** A chat that exists (400 chat not found), and for a group one the bot is in (403). */
export async function chatOf(call: MethodCall, id: number | string) {
  const chat = await resolveChat(call.s, id);
  if (chat.type === 'group') return { chat, group: await groupOfBot(call, chat) };
  const [user] = await repo.usersByIds(call.s.db.k, [chat.id]);
  if (user === undefined) throw badRequest('chat not found');
  return { chat, group: undefined };
}

const STATUS: Record<GroupRole, 'administrator' | 'member'> = {
  admin: 'administrator',
  moderator: 'administrator',
  member: 'member',
};

export const chatMethods = [
  method({
    name: 'getChat',
    summary: 'A chat (ChatFullInfo subset): a group as a supergroup, a user as a private chat',
    params: Type.Object({ chat_id: IdParam }),
    result: Type.Object({
      id: Type.Integer(),
      type: Type.String(),
      title: Type.Optional(Type.String()),
      first_name: Type.Optional(Type.String()),
      accent_color_id: Type.Integer(),
      max_reaction_count: Type.Integer(),
    }),
    run: async (call, p) => {
      const { chat } = await chatOf(call, p.chat_id);
      const dir = await Directory.load(
        call.s.db.k,
        chat.type === 'group' ? { groups: [chat.id] } : { users: [chat.id] },
      );
      return { ...dir.chat(chat), accent_color_id: 0, max_reaction_count: 0 };
    },
  }),
  method({
    name: 'getChatMember',
    summary: "A user's standing in a chat: creator, administrator, member or left",
    params: Type.Object({ chat_id: IdParam, user_id: IdParam }),
    result: Type.Object({ status: Type.String(), user: UserSchema }),
    run: async (call, p) => {
      const { chat, group } = await chatOf(call, p.chat_id);
      const userId = await resolveUser(call.s, p.user_id);
      const dir = await Directory.load(call.s.db.k, { users: [userId] });
      const user = dir.user(userId);
      if (user.id === 0) throw badRequest('user not found');
      if (group === undefined) {
        const inChat = userId === chat.id || userId === call.botId;
        return { status: inChat ? 'member' : 'left', user };
      }
      const role = await repo.roleOf(call.s.db.k, chat.id, userId);
      const status = group.owner_id === userId ? 'creator' : role === undefined ? 'left' : STATUS[role];
      return { status, user };
    },
  }),
  method({
    name: 'getChatMemberCount',
    summary: 'How many members a chat has, bots included',
    params: Type.Object({ chat_id: IdParam }),
    result: Type.Integer(),
    run: async (call, p) => {
      const { chat } = await chatOf(call, p.chat_id);
      return chat.type === 'group' ? repo.memberCount(call.s.db.k, chat.id) : 2;
    },
  }),
];
