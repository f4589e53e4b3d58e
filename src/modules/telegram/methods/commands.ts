// setMyCommands, getMyCommands, deleteMyCommands: kept per bot, scope and language_code.
import { Type, type Static } from 'typebox';
import { method, type MethodCall } from '../method.js';
import * as repo from '../repo.js';

const Command = Type.Object({
  command: Type.String({ minLength: 1, maxLength: 32, pattern: '^[a-z0-9_]+$' }),
  description: Type.String({ minLength: 1, maxLength: 256 }),
});
const Scope = Type.Optional(
  Type.Object(
    {
      type: Type.String({ maxLength: 64 }),
      chat_id: Type.Optional(Type.Unknown()),
      user_id: Type.Optional(Type.Unknown()),
    },
    { description: 'BotCommandScope; default {"type":"default"}' },
  ),
);
const Where = { scope: Scope, language_code: Type.Optional(Type.String({ maxLength: 16 })) };

/** The storage key: the scope as canonical JSON (its fields in a fixed order). */
const keyOf = (call: MethodCall, p: { scope?: Static<typeof Scope>; language_code?: string | undefined }) => {
  const s = p.scope ?? { type: 'default' };
  const scope = JSON.stringify({ type: s.type, chat_id: s.chat_id, user_id: s.user_id });
  return { botUserId: call.botId, scope, languageCode: p.language_code ?? '' };
};

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
      await repo.setCommands(call.s.db.k, keyOf(call, p), JSON.stringify(p.commands), call.s.clock.now());
      return true as const;
    },
  }),
  method({
    name: 'getMyCommands',
    summary: "The bot's command list for a scope and language",
    params: Type.Object(Where),
    result: Type.Array(Command),
    run: async (call, p) => parseCommands(await repo.commandsOf(call.s.db.k, keyOf(call, p))),
  }),
  method({
    name: 'deleteMyCommands',
    summary: "Delete the bot's command list for a scope and language",
    params: Type.Object(Where),
    result: Type.Literal(true),
    run: async (call, p) => {
      await repo.deleteCommands(call.s.db.k, keyOf(call, p));
      return true as const;
    },
  }),
];
