// The playground: a signed-in user talks to a bot as if from the community application. What the
// user writes and presses becomes the application's own events (message.created, button.clicked)
// through the events service, so delivery rules, privacy settings and permissions apply unchanged.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Db } from '../../db/connect.js';
import { CLOCK_SKEW_MS, type Clock } from '../../lib/clock.js';
import { AppError, Errors } from '../../errors.js';
import { parseIdList } from '../../lib/json.js';
import { ASSISTANT_USER_ID } from '../../db/migrations/0003_developers.js';
import type { EventsService } from '../events/index.js';
import * as repo from './repo.js';

export type BotRole = 'own' | 'assistant' | 'demo';

export interface BotChoice {
  user_id: string;
  name: string;
  role: BotRole;
}

export interface GroupChoice {
  group_id: string;
  name: string;
}

/** What the page shows around the conversation: the bots, the chosen one's chats, the chosen chat. */
export interface Place {
  bots: BotChoice[];
  bot?: BotChoice;
  groups: GroupChoice[];
  group?: GroupChoice;
  chat?: repo.ChatKey;
}

export type ChatItem =
  | { kind: 'user'; row: repo.UserMessageRow; changed: number }
  | { kind: 'bot'; row: repo.BotMessageRow; changed: number };

export interface Conversation {
  items: ChatItem[];
  /** Names of everyone who wrote or is mentioned. */
  names: ReadonlyMap<string, string>;
  /** The latest change seen (ms): the next long poll asks for what changed after it. */
  cursor: number;
}

/** Messages shown when a chat opens. */
const HISTORY = 50;
/**
 * How far before the cursor a look goes back. A message's time is the wall clock's of the instance
 * that wrote it, taken when its transaction started: one that commits late, or written on an
 * instance whose clock is behind (by up to the skew instances may have), is still picked up. At 5 s,
 * a message written on an instance 10 s behind was never shown live. (chat_messages has no
 * sequence number a cursor could follow instead.)
 */
const SLACK_MS = CLOCK_SKEW_MS;
/** How long one long poll waits for a change (on the monotonic timer), and how often it looks. */
const POLL_MS = 20_000;
const LOOK_MS = 400;

/**
 * An item and its change: a look that has one the session's last answer had not (on its first
 * poll, the poll's first look) has something new.
 */
const itemKey = (item: ChatItem): string => `${item.kind}:${item.row.message_id}:${item.changed}`;
const chatKey = (chat: repo.ChatKey): string =>
  chat.type === 'group' ? `group:${chat.groupId}` : `private:${chat.userId}:${chat.botUserId}`;
/**
 * Sessions whose last answer is remembered on this instance, the least recently answered dropped
 * first: a session dropped (or polling another instance) takes its poll's first look instead.
 */
const ANSWERED_SESSIONS = 1_000;

/** The items of a session's last live answer, in the chat it was for. */
interface Answered {
  chat: string;
  keys: ReadonlySet<string>;
}

/** A live-update request held open, until it answers or a newer one of its session ends it. */
export class LiveHold {
  private over = false;
  private wake = (): void => undefined;

  /** Waits `ms`, or less when a newer request ends this one; answers whether it is still held. */
  pause(ms: number): Promise<boolean> {
    if (this.over) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        resolve(true);
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve(false);
      };
    });
  }

  end(): void {
    this.over = true;
    this.wake();
  }
}

export class PlaygroundService {
  /** Each playground session's open live-update request, on this instance. */
  private readonly live = new Map<string, LiveHold>();
  /** Each session's last live answer on this instance (at most ANSWERED_SESSIONS of them). */
  private readonly answered = new Map<string, Answered>();

  constructor(
    private readonly db: Db,
    private readonly events: EventsService,
    private readonly clock: Clock,
    /** Milliseconds that only go forward, for how long a poll has waited (tests pass a fake one). */
    private readonly monotonic: () => number = () => performance.now(),
  ) {}

  /**
   * Opens the session's one live-update request, ending the one it had open (which answers at
   * once): a session holds one request and its look-ups, however many it sends. `release` it when
   * it answers.
   */
  private hold(session: string): LiveHold {
    this.live.get(session)?.end();
    const hold = new LiveHold();
    this.live.set(session, hold);
    return hold;
  }

  private release(session: string, hold: LiveHold): void {
    if (this.live.get(session) === hold) this.live.delete(session);
  }

  /** Remembers the items answered to `session`, dropping the least recently answered session past the bound. */
  private remember(session: string, chat: string, keys: ReadonlySet<string>): void {
    this.answered.delete(session);
    this.answered.set(session, { chat, keys });
    if (this.answered.size > ANSWERED_SESSIONS) {
      const oldest = this.answered.keys().next();
      if (oldest.done !== true) this.answered.delete(oldest.value);
    }
  }

  /**
   * The session's live-update request: the chat as changed after `after`, once something changed,
   * the poll's time is up or `stop()` says to answer now (the client left, the server closes);
   * undefined when a newer request of the session ended this one. Looks every LOOK_MS meanwhile.
   */
  async waitForChange(
    session: string,
    chat: repo.ChatKey,
    after: number,
    stop: () => boolean,
  ): Promise<Conversation | undefined> {
    // Timed on the monotonic timer: on the wall clock, set back an hour, a poll was held an hour.
    const deadline = this.monotonic() + POLL_MS;
    const hold = this.hold(session);
    try {
      // Something new is a later change, or one the session's last answer did not have: written
      // after a step back of the wall clock (or on an instance behind), it is older than the
      // cursor. Compared with this poll's first look instead, one written between the last answer
      // and that look was held until the poll's time was up.
      const where = chatKey(chat);
      const last = this.answered.get(session);
      let had = last?.chat === where ? last.keys : undefined;
      for (;;) {
        const conversation = await this.conversation(chat, after);
        const seen = new Set(conversation.items.map(itemKey));
        had ??= seen;
        const baseline = had;
        const added = [...seen].some((key) => !baseline.has(key));
        const stopped = stop();
        if (conversation.cursor > after || added || stopped || this.monotonic() >= deadline) {
          // An answer to a client that left is not received: the next poll compares with the last one it was.
          if (!stopped) this.remember(session, where, seen);
          return conversation;
        }
        if (!(await hold.pause(LOOK_MS))) return undefined;
      }
    } finally {
      this.release(session, hold);
    }
  }

  /** The bots `userId` may try (own, the assistant, the demo bot) and, given ids, the chosen chat. */
  async place(userId: string, botId?: string, groupId?: string): Promise<Place> {
    const q = this.db.k;
    const demo = await repo.demoBotId(q);
    const roles = new Map<string, BotRole>([[ASSISTANT_USER_ID, 'assistant']]);
    if (demo !== undefined) roles.set(demo, 'demo');
    for (const id of await repo.botsOwnedBy(q, userId)) roles.set(id, 'own');
    const names = new Map((await repo.namesOf(q, [...roles.keys()])).map((u) => [u.user_id, u.name]));
    const bots = [...roles].map(([id, role]) => ({ user_id: id, name: names.get(id) ?? id, role }));
    if (botId === undefined) return { bots, groups: [] };
    const bot = bots.find((b) => b.user_id === botId);
    if (bot === undefined) throw new AppError(Errors.unknownBot);
    const mine = new Set((await repo.groupsWith(q, this.db.dialect, userId)).map((g) => g.group_id));
    const groups = (await repo.groupsWith(q, this.db.dialect, bot.user_id)).filter((g) => mine.has(g.group_id));
    if (groupId === undefined) return { bots, bot, groups, chat: { type: 'private', userId, botUserId: bot.user_id } };
    const group = groups.find((g) => g.group_id === groupId);
    if (group === undefined) throw new AppError(Errors.unknownGroup);
    return { bots, bot, groups, group, chat: { type: 'group', groupId: group.group_id } };
  }

  /** The chat's messages changed after `after` (ms; 0 for the latest history), oldest first. */
  async conversation(chat: repo.ChatKey, after = 0): Promise<Conversation> {
    // A cursor ahead of this clock was taken before it was set back: what is written now is
    // stamped now, behind the cursor, so the look starts from now instead.
    const since = after === 0 ? 0 : Math.min(after, this.clock.now()) - SLACK_MS;
    const [users, bots] = await Promise.all([
      repo.userMessages(this.db.k, chat, since, HISTORY),
      repo.botMessages(this.db.k, chat, since, HISTORY),
    ]);
    const items: ChatItem[] = [
      ...users.map((row) => ({ kind: 'user' as const, row, changed: row.created_at })),
      ...bots.map((row) => ({ kind: 'bot' as const, row, changed: row.edited_at ?? row.created_at })),
    ].sort((a, b) => a.row.created_at - b.row.created_at);
    const people = new Set(items.flatMap((i) => [i.row.from_user_id, ...parseIdList(i.row.mention_user_ids)]));
    const names = new Map((await repo.namesOf(this.db.k, [...people])).map((u) => [u.user_id, u.name]));
    return { items, names, cursor: Math.max(after, ...items.map((i) => i.changed)) };
  }

  /**
   * Writes `text` as `userId` into the chat (a command when it starts with "/"), mentioning the
   * given users; answers the refusal reason when a platform rule refused it.
   */
  async send(userId: string, chat: repo.ChatKey, text: string, mentions: readonly string[]) {
    const where = chat.type === 'group' ? { group_id: chat.groupId } : { to_user_id: chat.botUserId };
    const data = {
      message_id: `pg_${randomUUID()}`,
      chat_type: chat.type,
      from_user_id: userId,
      ...where,
      kind: text.startsWith('/') ? 'command' : 'text',
      text,
      ...(mentions.length > 0 ? { mention_user_ids: [...mentions] } : {}),
    };
    return this.refusal(
      await this.events.ingest([{ id: `playground-${randomUUID()}`, type: 'message.created', data }]),
    );
  }

  /** A press on an inline button of a bot's message in the chat: a callback query to that bot. */
  async press(userId: string, chat: repo.ChatKey, messageId: string, data: string) {
    if (!(await repo.botMessageIn(this.db.k, chat, messageId))) throw new AppError(Errors.messageNotFound);
    const event = {
      id: `playground-${randomUUID()}`,
      type: 'button.clicked',
      data: { callback_id: `pg_${randomUUID()}`, message_id: messageId, user_id: userId, data },
    };
    return this.refusal(await this.events.ingest([event]));
  }

  private refusal(result: Awaited<ReturnType<EventsService['ingest']>>): string | undefined {
    return result.refused[0]?.reason;
  }
}
