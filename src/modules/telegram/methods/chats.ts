// getChat, getChatMember, getChatAdministrators, getChatMemberCount: groups and private chats in
// Telegram's shapes.
import { Type } from 'typebox';
import { AppError, Errors } from '../../../errors.js';
import type { GroupRole } from '../../../db/types.js';
import { IdParam, resolveChat, resolveUser } from '../chats.js';
import { badRequest } from '../errors.js';
import { method, type MethodCall } from '../method.js';
import { Directory, type TgUser } from '../presenter.js';
import * as repo from '../repo.js';
import { UserSchema } from '../schema.js';
import type { ChatRef } from '../../messaging/index.js';
import { findGroup } from '../../groups/index.js';

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

/**
 * Which gifts a chat accepts: none, as nothing here can be gifted. Telegram's ChatFullInfo always
 * carries it since Bot API 9.0, and aiogram 3 and python-telegram-bot 22.1+ refuse one without it
 * (python-telegram-bot 22.6 and aiogram also require gifts_from_channels).
 */
const ACCEPTED_GIFT_TYPES = {
  unlimited_gifts: false,
  limited_gifts: false,
  unique_gifts: false,
  premium_subscription: false,
  gifts_from_channels: false,
};

const STATUS: Record<GroupRole, 'administrator' | 'member'> = {
  admin: 'administrator',
  moderator: 'administrator',
  member: 'member',
};

/**
 * The fields Telegram's ChatMemberOwner and ChatMemberAdministrator always carry (aiogram and
 * python-telegram-bot refuse an answer without them). A moderator may remove messages and members;
 * an admin may also change the group and appoint others; nobody here is anonymous or editable by a bot.
 */
function standing(status: string, role: GroupRole | undefined) {
  if (status === 'creator') return { is_anonymous: false };
  if (status !== 'administrator') return {};
  const admin = role === 'admin';
  return {
    can_be_edited: false,
    is_anonymous: false,
    can_manage_chat: true,
    can_delete_messages: true,
    can_manage_video_chats: false,
    can_restrict_members: true,
    can_promote_members: admin,
    can_change_info: admin,
    can_invite_users: true,
    can_post_stories: false,
    can_edit_stories: false,
    can_delete_stories: false,
  };
}

/** One ChatMember: the status, the user and the fields of its kind (getChatMember, getChatAdministrators). */
const chatMember = (status: string, user: TgUser, role: GroupRole | undefined) => ({
  status,
  user,
  ...standing(status, role),
});

const ChatMemberSchema = Type.Object(
  {
    status: Type.String(),
    user: UserSchema,
    ...Object.fromEntries(
      Object.keys(standing('administrator', 'admin')).map((k) => [k, Type.Optional(Type.Boolean())]),
    ),
  },
  { description: 'ChatMember; an owner or administrator with the fields of its kind' },
);

/** The roles getChatMember shows as administrators. */
const ADMIN_ROLES = (Object.keys(STATUS) as GroupRole[]).filter((r) => STATUS[r] === 'administrator');

/**
 * Administrators getChatAdministrators lists besides the owner: Telegram's own limit on a
 * supergroup's administrators, so no bot written for it expects more. Nothing here limits how many
 * members are admins or moderators; beyond it the earliest to join are listed.
 */
export const MAX_ADMINISTRATORS = 50;

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
      accepted_gift_types: Type.Object({
        unlimited_gifts: Type.Boolean(),
        limited_gifts: Type.Boolean(),
        unique_gifts: Type.Boolean(),
        premium_subscription: Type.Boolean(),
        gifts_from_channels: Type.Boolean(),
      }),
    }),
    run: async (call, p) => {
      const { chat } = await chatOf(call, p.chat_id);
      const dir = await Directory.load(
        call.s.db.k,
        chat.type === 'group' ? { groups: [chat.id] } : { users: [chat.id] },
      );
      return { ...dir.chat(chat), accent_color_id: 0, max_reaction_count: 0, accepted_gift_types: ACCEPTED_GIFT_TYPES };
    },
  }),
  method({
    name: 'getChatMember',
    summary: "A user's standing in a chat: creator, administrator, member or left",
    params: Type.Object({ chat_id: IdParam, user_id: IdParam }),
    result: ChatMemberSchema,
    run: async (call, p) => {
      const { chat, group } = await chatOf(call, p.chat_id);
      const userId = await resolveUser(call.s, p.user_id);
      const dir = await Directory.load(call.s.db.k, { users: [userId] });
      const user = dir.user(userId);
      if (user.id === 0) throw badRequest('user not found');
      if (group === undefined) {
        const inChat = userId === chat.id || userId === call.botId;
        return chatMember(inChat ? 'member' : 'left', user, undefined);
      }
      const role = await repo.roleOf(call.s.db.k, chat.id, userId);
      const status = group.owner_id === userId ? 'creator' : role === undefined ? 'left' : STATUS[role];
      return chatMember(status, user, role);
    },
  }),
  method({
    name: 'getChatAdministrators',
    summary: "A group's owner (creator) and administrators; other bots left out, as Telegram does",
    params: Type.Object({ chat_id: IdParam }),
    result: Type.Array(ChatMemberSchema, { maxItems: MAX_ADMINISTRATORS + 1 }),
    run: async (call, p) => {
      const { group } = await chatOf(call, p.chat_id);
      if (group === undefined) throw badRequest('there are no administrators in the private chat');
      const admins = await repo.membersWithRoles(
        call.s.db.k,
        { groupId: group.group_id, ownerId: group.owner_id },
        ADMIN_ROLES,
        call.botId,
        MAX_ADMINISTRATORS,
      );
      const owner = group.owner_id ?? undefined;
      const dir = await Directory.load(call.s.db.k, {
        users: [...(owner === undefined ? [] : [owner]), ...admins.map((a) => a.user_id)],
      });
      const creator = owner === undefined ? undefined : dir.user(owner);
      // An owner whose user is gone is not shown; nor one that is another bot (Telegram lists no
      // other bot).
      const shown = creator !== undefined && creator.id !== 0 && (!creator.is_bot || owner === call.botId);
      return [
        ...(shown ? [chatMember('creator', creator, undefined)] : []),
        ...admins.map((a) => chatMember(STATUS[a.role], dir.user(a.user_id), a.role)),
      ];
    },
  }),
  method({
    name: 'getChatMemberCount',
    summary: 'How many members a chat has, bots included',
    params: Type.Object({ chat_id: IdParam }),
    result: Type.Integer(),
    run: async (call, p) => {
      // The group's member counter, kept as members join and leave: a count of its rows would cost
      // a read of every member (12 ms at 100,000) on each call.
      const { chat } = await chatOf(call, p.chat_id);
      return chat.type === 'group' ? ((await findGroup(call.s.db.k, chat.id))?.member_count ?? 0) : 2;
    },
  }),
];
