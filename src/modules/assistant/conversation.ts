// Where a user's conversation with the assistant stands, kept in the store (assistant_conversations)
// in the transaction of the message that moved it, so it survives a restart.
import type { Kysely } from 'kysely';
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import type { DB } from '../../db/types.js';
import * as repo from './repo.js';

/** Commands that act on one of the user's bots. */
export const BOT_COMMANDS = [
  'token',
  'revoke',
  'resetsecret',
  'setwebhook',
  'deletewebhook',
  'setprivacy',
  'apply',
  'info',
  'setname',
  'setdescription',
  'setavatar',
  'deletebot',
] as const;
export type BotCommand = (typeof BOT_COMMANDS)[number];

/** What the assistant asked and waits for. */
export const ASKS = [
  'webhook_url',
  'private_messages',
  'group_invites',
  'permission',
  'name',
  'description',
  'avatar',
] as const;
export type Ask = (typeof ASKS)[number];

const State = Type.Union([
  Type.Object({ step: Type.Literal('newbot_name') }),
  Type.Object({ step: Type.Literal('newbot_description'), name: Type.String() }),
  Type.Object({ step: Type.Literal('choose_bot'), command: Type.Enum(BOT_COMMANDS) }),
  Type.Object({ step: Type.Literal('answer'), ask: Type.Enum(ASKS), bot: Type.String() }),
]);
export type State = Static<typeof State>;
const StateCheck = Compile(State);

export async function loadState(tx: Kysely<DB>, userId: string): Promise<State | undefined> {
  const stored = await repo.conversationOf(tx, userId);
  if (stored === undefined) return undefined;
  const parsed: unknown = JSON.parse(stored);
  // A state written by an older version that no longer fits starts the conversation afresh.
  return StateCheck.Check(parsed) ? parsed : undefined;
}

export async function saveState(tx: Kysely<DB>, userId: string, state: State | undefined, now: number) {
  if (state === undefined) await repo.endConversation(tx, userId);
  else await repo.saveConversation(tx, userId, JSON.stringify(state), now);
}
