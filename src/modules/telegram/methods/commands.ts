// setMyCommands, getMyCommands, deleteMyCommands: kept per bot, scope and language_code.
import { Type, type Static } from 'typebox';
import { IdParam, resolveUser } from '../chats.js';
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
 * The storage key: the scope as canonical JSON (fields in a fixed order), a chat and a user by their
 * Telegram numbers, so that a number, its text and the platform id name one list. The chat must be
 * one the bot can see (400 chat not found, 403 for a group it is not in), the user one that exists.
 */
async function keyOf(call: MethodCall, p: { scope?: Static<typeof Scope>; language_code?: string | undefined }) {
  const s = p.scope ?? { type: 'default' as const };
  const where = { botUserId: call.botId, languageCode: p.language_code ?? '' };
  if (s.type !== 'chat' && s.type !== 'chat_administrators' && s.type !== 'chat_member')
    return { ...where, scope: JSON.stringify({ type: s.type }) };
  if (s.chat_id === undefined) throw badRequest(`scope: chat_id is required for type ${s.type}`);
  const { chat } = await chatOf(call, s.chat_id);
  let member: string | undefined;
  if (s.type === 'chat_member') {
    if (s.user_id === undefined) throw badRequest('scope: user_id is required for type chat_member');
    member = await resolveUser(call.s, s.user_id);
  }
  const dir = await Directory.load(call.s.db.k, {
    users: [...(chat.type === 'private' ? [chat.id] : []), ...(member === undefined ? [] : [member])],
    groups: chat.type === 'group' ? [chat.id] : [],
  });
  const userNumber = member === undefined ? undefined : dir.user(member).id;
  if (userNumber === 0) throw badRequest('user not found');
  return { ...where, scope: JSON.stringify({ type: s.type, chat_id: dir.chat(chat).id, user_id: userNumber }) };
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
      const key = await keyOf(call, p);
      await call.s.work.run(({ tx, now }) => repo.setCommands(tx, key, JSON.stringify(p.commands), now));
      return true as const;
    },
  }),
  method({
    name: 'getMyCommands',
    summary: "The bot's command list for a scope and language",
    params: Type.Object(Where),
    result: Type.Array(Command),
    run: async (call, p) => parseCommands(await repo.commandsOf(call.s.db.k, await keyOf(call, p))),
  }),
  method({
    name: 'deleteMyCommands',
    summary: "Delete the bot's command list for a scope and language",
    params: Type.Object(Where),
    result: Type.Literal(true),
    run: async (call, p) => {
      const key = await keyOf(call, p);
      await call.s.work.run(({ tx }) => repo.deleteCommands(tx, key));
      return true as const;
    },
  }),
];
