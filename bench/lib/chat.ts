// A small chat world for the message cases: users, bots and groups where bots are members, and
// batches of `message.created` events that fan out to those bots: private messages to a bot, group
// messages mentioning one bot of the group, and group messages mentioning nobody (bots without
// listen_group_messages get nothing from those). Built through whatever the caller gives: the
// services in process, or the operator API over HTTP.

export interface ChatWorld {
  users: string[];
  bots: { bot_user_id: string; api_key: string; app_id: string; app_secret: string }[];
  groups: { group_id: string; bots: string[] }[];
}

export interface WorldSize {
  users: number;
  bots: number;
  groups: number;
  /** Bots per group, taken round the bots. */
  botsPerGroup: number;
}

interface Event {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

export interface WorldBuilder {
  ingest(events: Event[]): Promise<void>;
  createBot(owner: string, name: string): Promise<ChatWorld['bots'][number]>;
}

/** Bots per owner (the platform refuses a sixth). */
const BOTS_PER_OWNER = 5;

export async function buildChatWorld(b: WorldBuilder, size: WorldSize, tag: string): Promise<ChatWorld> {
  const users = Array.from({ length: size.users }, (_, i) => `chat-${tag}-u${i}`);
  await b.ingest(
    users.map((user_id, i) => ({
      id: `chat-${tag}-user-${i}`,
      type: 'user.upserted',
      data: { user_id, name: `Chat user ${i}`, wallet_address: `0xc${tag}${i}`, level: 5 },
    })),
  );
  const bots: ChatWorld['bots'] = [];
  for (let i = 0; i < size.bots; i++) {
    const owner = users[Math.floor(i / BOTS_PER_OWNER) % users.length] ?? '';
    bots.push(await b.createBot(owner, `Chat bot ${i}`));
  }
  const groups = Array.from({ length: size.groups }, (_, g) => ({
    group_id: `chat-${tag}-g${g}`,
    bots: Array.from(
      { length: Math.min(size.botsPerGroup, bots.length) },
      (_, k) => bots[(g * size.botsPerGroup + k) % bots.length]?.bot_user_id ?? '',
    ),
  }));
  const perGroup = Math.ceil(users.length / Math.max(1, groups.length));
  await b.ingest(
    groups.flatMap((g, n) => [
      {
        id: `chat-${tag}-group-${n}`,
        type: 'group.upserted',
        data: { group_id: g.group_id, name: `Chat ${n}`, invite_url: `https://bench.example/${g.group_id}` },
      },
      ...[...g.bots, ...users.slice(n * perGroup, (n + 1) * perGroup)].map((user_id) => ({
        id: `chat-${tag}-join-${n}-${user_id}`,
        type: 'group.member.joined',
        data: { group_id: g.group_id, user_id },
      })),
    ]),
  );
  return { users, bots, groups };
}

export interface MessageBatch {
  events: Event[];
  /** Updates the batch creates, per bot. */
  updates: Map<string, number>;
}

/** Shares of a batch: 2 in 5 private to a bot, 1 in 5 a group message mentioning a bot, the rest unmentioned group messages. */
export function messageBatch(w: ChatWorld, size: number, tag: string): MessageBatch {
  const updates = new Map<string, number>();
  const gets = (bot: string) => updates.set(bot, (updates.get(bot) ?? 0) + 1);
  const events = Array.from({ length: size }, (_, i): Event => {
    const from = w.users[i % w.users.length] ?? '';
    const base = { message_id: `m-${tag}-${i}`, from_user_id: from, kind: 'text' };
    const slot = i % 5;
    if (slot < 2 || w.groups.length === 0) {
      const bot = w.bots[i % w.bots.length]?.bot_user_id ?? '';
      gets(bot);
      return {
        id: `e-${tag}-${i}`,
        type: 'message.created',
        data: { ...base, chat_type: 'private', to_user_id: bot, text: `hello bot ${i}` },
      };
    }
    const group = w.groups[i % w.groups.length] ?? { group_id: '', bots: [] };
    const mentioned = slot === 2 ? group.bots[i % group.bots.length] : undefined;
    if (mentioned !== undefined) gets(mentioned);
    return {
      id: `e-${tag}-${i}`,
      type: 'message.created',
      data: {
        ...base,
        chat_type: 'group',
        group_id: group.group_id,
        text: mentioned === undefined ? `chatter ${i}` : `@bot look at ${i}`,
        ...(mentioned === undefined ? {} : { mention_user_ids: [mentioned] }),
      },
    };
  });
  return { events, updates };
}
