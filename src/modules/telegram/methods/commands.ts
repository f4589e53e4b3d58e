// setMyCommands, getMyCommands, deleteMyCommands: kept per bot, scope and language_code.
import { Type, type Static } from 'typebox';
import { TELEGRAM_CHAT_NOT_FOUND } from '../../../errors.js';
import { findBot, privateAllowed } from '../../bots/index.js';
import { isFollowing } from '../../users/index.js';
import { IdParam, resolveChat, resolveUser } from '../chats.js';
import { badRequest } from '../errors.js';
import { method, type MethodCall } from '../method.js';
import { Directory } from '../presenter.js';
import { chatOf } from './chats.js';
import * as repo from '../repo.js';

const Command = Type.Object({
  command: Type.String({ minLength: 1, maxLength: 32, pattern: '^[a-z0-9_]+$' }),
  description: Type.String({ minLength: 1, maxLength: 256 }),
});
/** Telegram's BotCommandScope types; the last three name a chat (and chat_member a user in it). */
const ScopeType = Type.Union([
  Type.Literal('default'),
  Type.Literal('all_private_chats'),
  Type.Literal('all_group_chats'),
  Type.Literal('all_chat_administrators'),
  Type.Literal('chat'),
  Type.Literal('chat_administrators'),
  Type.Literal('chat_member'),
]);
const Scope = Type.Optional(
  Type.Object(
    {
      type: ScopeType,
      chat_id: Type.Optional(IdParam),
      user_id: Type.Optional(IdParam),
    },
    { description: 'BotCommandScope; default {"type":"default"}' },
  ),
);
const Where = {
  scope: Scope,
  language_code: Type.Optional(
    Type.String({
      pattern: '^([a-z]{2})?$',
      description: 'two-letter ISO 639-1 code; empty: every language',
      examples: ['en'],
    }),
  ),
};

/**
 * Most command lists (distinct scope and language_code pairs) a bot keeps. Telegram sets no number,
 * but a list holds up to 100 commands of ~29 KB in all, and with a list per chat and language a bot
 * could otherwise fill the store. 100 is far more than a bot uses: the four broad scopes in a dozen
 * languages each, and dozens of lists for particular chats besides; at most ~3 MB a bot.
 */
const MAX_COMMAND_LISTS = 100;

/**
 * A private chat the bot may write in, by the rule its sends follow (the bots module's
 * privateAllowed): Telegram does not find the chat of a user who has no chat with the bot.
 */
async function reachesPrivately(call: MethodCall, userId: string): Promise<boolean> {
  const bot = await findBot(call.s.db.k, call.botId);
  const follows = (a: string, b: string) => isFollowing(call.s.db.k, a, b);
  return bot !== undefined && privateAllowed(bot.private_message_policy, call.botId, userId, follows);
}

/**
 * The storage key: the scope as canonical JSON (fields in a fixed order), a chat and a user by their
 * Telegram numbers, so that a number, its text and the platform id name one list. The user must
 * exist. To set or read a list, a group must be one the bot is in (400 chat not found, 403 for a
 * group it is not in); to set one, a private chat must be one the bot may write in (400 chat not
 * found) and, as in TDLib's BotCommandScope::get_bot_command_scope, only the `chat` scope names a
 * private chat. To delete one the chat need only exist, so that a bot can always free the place of
 * a list of a chat it has since lost.
 */
async function keyOf(
  call: MethodCall,
  p: { scope?: Static<typeof Scope>; language_code?: string | undefined },
  use: 'set' | 'get' | 'delete',
) {
  const s = p.scope ?? { type: 'default' as const };
  const where = { botUserId: call.botId, languageCode: p.language_code ?? '' };
  if (s.type !== 'chat' && s.type !== 'chat_administrators' && s.type !== 'chat_member')
    return { ...where, scope: JSON.stringify({ type: s.type }) };
  if (s.chat_id === undefined) throw badRequest(`scope: chat_id is required for type ${s.type}`);
  if (s.type === 'chat_member' && s.user_id === undefined)
    throw badRequest('scope: user_id is required for type chat_member');
  const chat = use === 'delete' ? await resolveChat(call.s, s.chat_id) : (await chatOf(call, s.chat_id)).chat;
  const setting = use === 'set';
  if (setting && chat.type === 'private' && !(await reachesPrivately(call, chat.id)))
    throw badRequest(TELEGRAM_CHAT_NOT_FOUND);
  const member = s.type === 'chat_member' && s.user_id !== undefined ? await resolveUser(call.s, s.user_id) : undefined;
  const dir = await Directory.load(call.s.db.k, {
    users: [...(chat.type === 'private' ? [chat.id] : []), ...(member === undefined ? [] : [member])],
    groups: chat.type === 'group' ? [chat.id] : [],
  });
  const chatNumber = dir.chat(chat).id;
  if (chatNumber === 0) throw badRequest(TELEGRAM_CHAT_NOT_FOUND);
  const userNumber = member === undefined ? undefined : dir.user(member).id;
  if (userNumber === 0) throw badRequest('user not found');
  if (setting && chat.type === 'private' && s.type !== 'chat')
    throw badRequest("can't use specified scope in private chats");
  return { ...where, scope: JSON.stringify({ type: s.type, chat_id: chatNumber, user_id: userNumber }) };
}

const parseCommands = (json: string | undefined): Static<typeof Command>[] => {
  if (json === undefined) return [];
  const v: unknown = JSON.parse(json);
  return Array.isArray(v)
    ? v.flatMap((c: unknown) =>
        typeof c === 'object' && c !== null && 'command' in c && 'description' in c
          ? [{ command: String(c.command), description: String(c.description) }]
          : [],
      )
    : [];
};

export const commandMethods = [
  method({
    name: 'setMyCommands',
    summary: "Set the bot's command list for a scope and language",
    params: Type.Object({ commands: Type.Array(Command, { maxItems: 100 }), ...Where }),
    result: Type.Literal(true),
    run: async (call, p) => {
      const key = await keyOf(call, p, 'set');
      const commands = JSON.stringify(p.commands);
      const set = await call.s.work.run(({ tx, now }) => repo.setCommands(tx, key, commands, now, MAX_COMMAND_LISTS));
      if (!set)
        throw badRequest(
          `too many command lists: a bot keeps at most ${MAX_COMMAND_LISTS} scope and language_code pairs; delete one with deleteMyCommands first`,
        );
      return true as const;
    },
  }),
  method({
    name: 'getMyCommands',
    summary: "The bot's command list for a scope and language",
    params: Type.Object(Where),
    result: Type.Array(Command),
    run: async (call, p) => parseCommands(await repo.commandsOf(call.s.db.k, await keyOf(call, p, 'get'))),
  }),
  method({
    name: 'deleteMyCommands',
    summary: "Delete the bot's command list for a scope and language",
    params: Type.Object(Where),
    result: Type.Literal(true),
    run: async (call, p) => {
      const key = await keyOf(call, p, 'delete');
      await call.s.work.run(({ tx }) => repo.deleteCommands(tx, key));
      return true as const;
    },
  }),
];
