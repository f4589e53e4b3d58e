// Sending and editing messages, for the /openapi/messages endpoints and the bot methods alike.
// Every rule lives here: membership, privacy, the image level, links, rate limits, idempotency.
import { isDeepStrictEqual } from 'node:util';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { Db } from '../../db/connect.js';
import { committed, within, type Reading } from '../../db/prepared.js';
import type { DB, GroupRole } from '../../db/types.js';
import { UnitOfWork } from '../../db/work.js';
import { MEMBER_KEY_PREFIX, memberKey, USER_KEY_PREFIX, type Invalidations } from '../../lib/invalidation.js';
import { TtlCache } from '../../lib/ttl-lru.js';
import { AppError, Errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { takeOrRefuse, type Claim, type RateLimiter } from '../../lib/rate-limit.js';
import type { Credential } from '../auth/index.js';
import { permissionsOf, privateAllowed } from '../bots/index.js';
import { findUser, type UserReads, usersExist } from '../users/index.js';
import { mentionsJson } from '../../lib/json.js';
import type { InlineKeyboard } from './keyboard.js';
import { firstAnswer, keptAnswer } from './first-answer.js';
import { IDEMPOTENCY_WINDOW_MS } from './idempotency-key.js';
import { hasImage, layout, parseMarkup, type Markup } from './markup.js';
import { messageOf, type Message } from './message.js';
import { messageView, viewWith, type MessageView } from './view.js';
import { nextMessageNumbers } from './numbers.js';
import { messagingStatements, type MessagingStatements } from './reads.js';
import { OutboxWriter } from './outbox-writer.js';
import * as repo from './repo.js';

export const MIN_IMAGE_LEVEL = 2;
const MAX_MENTIONS = 1000;
/** Followers a broadcast reads and writes rows for at a time. */
const FANS_PAGE = 1000;
const MEMBERSHIP_TTL_MS = 10_000;

interface SenderInGroup {
  userId: string;
  level: number;
  role: GroupRole | null;
}

export type ChatRef = { type: 'group'; id: string } | { type: 'private'; id: string };

export interface Content {
  /** What the client named the message type; the outbox keeps it. */
  objectName: string;
  rich: boolean;
  title: string | null;
  content: string;
  replyMarkup: InlineKeyboard | null;
}

/** An edit of a message's keyboard alone: its content, type and title stay as the edit finds them. */
export interface KeyboardEdit {
  replyMarkup: InlineKeyboard | null;
}

export interface SendInput extends Content {
  chat: ChatRef;
  mentionUserIds: readonly string[];
  /**
   * Mentions every member of the group (mention_type 1): the send names its first MAX_MENTIONS
   * members, read once it is admitted, and the outbox flags it (mention_all) for the application,
   * which notifies every member.
   */
  mentionAll?: boolean;
  idempotencyKey: string | undefined;
}

export type OutboxInsert = repo.OutboxMessageRow;

export interface Sent {
  message: Message;
  replayed: boolean;
}

/** The user a credential speaks as: the bot itself, or the developer who owns the app. */
export const senderOf = (c: Credential): string => c.botUserId ?? c.ownerUserId;

const paramError = (detail: string) => new AppError(Errors.paramError, detail);

/** `stored`: the content is a message's own, unchanged (an edit of its keyboard), read as it was. */
function parseRich(c: Content, stored = false): Markup | null {
  if (!c.rich) return null;
  const parsed = parseMarkup(c.content, { checkText: !stored });
  if (!parsed.ok) throw paramError(`content: ${parsed.error}`);
  return parsed.markup;
}

/** The stored keyboard as data: key order is not a change. */
const keyboardOf = (json: string | null): unknown => (json === null ? null : JSON.parse(json));

/** Whether an edit would store the message's content, type and keyboard as they are. */
const unchanged = (
  row: Pick<repo.OutboxRow, 'content' | 'object_name' | 'reply_markup'>,
  next: Pick<repo.OutboxRow, 'content' | 'object_name' | 'reply_markup'>,
): boolean =>
  row.content === next.content &&
  row.object_name === next.object_name &&
  isDeepStrictEqual(keyboardOf(row.reply_markup), keyboardOf(next.reply_markup));

/** Whether the message shows an image: the Lv.2 rule of decisions.md section 3 applies. */
const showsImage = (c: Content, markup: Markup | null): boolean =>
  c.objectName === 'image' || (markup !== null && hasImage(markup));

export class MessagingService {
  private readonly st: MessagingStatements;
  private readonly writer: OutboxWriter;
  private readonly members: TtlCache<SenderInGroup>;

  constructor(
    private readonly db: Db,
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
    private readonly limiter: RateLimiter,
    private readonly config: Pick<Config, 'rateLimits' | 'limits'>,
    private readonly userReads: UserReads,
    invalidations: Invalidations,
  ) {
    this.st = messagingStatements(db);
    this.writer = new OutboxWriter(work, db.dialect);
    this.members = new TtlCache(
      MEMBERSHIP_TTL_MS,
      100_000,
      () => clock.now(),
      (m) => m.userId,
    );
    // A membership entry holds the sender's level too: a level change drops the user's entries.
    invalidations.listen(
      (key) => {
        if (key.startsWith(MEMBER_KEY_PREFIX)) this.members.delete(key);
        else if (key.startsWith(USER_KEY_PREFIX)) {
          this.members.deleteGroup(key.slice(USER_KEY_PREFIX.length));
        }
      },
      () => {
        this.members.clear();
      },
    );
  }

  /**
   * The sender's level and role in a group (role null: not a member), cached when a member: read
   * on every group send. Inside a transaction it is read through it, uncached: see `admit`.
   */
  private async senderInGroup(at: Reading, groupId: string, sender: string): Promise<SenderInGroup | undefined> {
    const read = async () => {
      const row = await at.one(this.st.senderInGroup, [groupId, sender]);
      return row === undefined ? undefined : { userId: sender, level: row.level, role: row.role };
    };
    // Only memberships are kept: a sender naming made-up groups (refused before any rate limit)
    // would otherwise fill the cache with them and push real memberships out.
    return at.tx === undefined
      ? this.members.getOrRead(memberKey(groupId, sender), read, (s) => s.role !== null)
      : read();
  }

  /**
   * Takes a token from every claim's bucket, or from none and throws the 429 of the first empty
   * one. Called inside a write's transaction it takes once however often that runs (db/retry.ts,
   * a shared SQLite transaction run again): `taken` remembers the first answer.
   */
  private limit(claims: readonly Claim[]): () => Promise<void> {
    let taken: Promise<void> | undefined;
    return () =>
      (taken ??= (async () => {
        if (!this.config.rateLimits) return;
        await takeOrRefuse(this.limiter, claims, this.clock.now());
      })());
  }

  /** decisions.md section 3: the sender's overall bucket. */
  private overallClaim(sender: string): Claim {
    const perSecond = this.config.limits.botPerSecond;
    return { key: `send:${sender}`, bucket: { perSecond, burst: perSecond } };
  }

  /** decisions.md section 3: the bucket of one private chat, or of one group, of the sender. */
  private chatClaim(sender: string, chat: ChatRef): Claim {
    const l = this.config.limits;
    return chat.type === 'private'
      ? { key: `chat:${sender}:${chat.id}`, bucket: { perSecond: l.privateChatPerSecond, burst: l.privateChatBurst } }
      : { key: `group:${sender}:${chat.id}`, bucket: { perSecond: l.groupPerMinute / 60, burst: l.groupPerMinute } };
  }

  /**
   * Who may receive what from `sender` in `chat`, by statements compiled once: this runs on every
   * send. A send checks before its write, on committed data (`at` is `committed`); an edit checks
   * inside its transaction, through it, because on SQLite that transaction may be shared with
   * writes not yet committed (db/work.ts) that the check must see.
   */
  private async admit(at: Reading, sender: string, chat: ChatRef, image: boolean): Promise<void> {
    let level: number;
    let exemptFromImageLevel = false;
    if (chat.type === 'group') {
      const s = await this.senderInGroup(at, chat.id, sender);
      if (s === undefined) throw new AppError(Errors.unknownUser, 'the sender no longer exists');
      if (s.role === null) {
        if ((await at.one(this.st.groupExists, [chat.id])) === undefined) throw new AppError(Errors.unknownGroup);
        throw new AppError(Errors.notGroupMember);
      }
      level = s.level;
      // An administrator is exempt from the image level in that group only.
      exemptFromImageLevel = s.role === 'admin';
    } else {
      const s = await at.one(this.st.senderPrivacy, [sender]);
      if (s === undefined) throw new AppError(Errors.unknownUser, 'the sender no longer exists');
      if ((await at.one(this.st.userExists, [chat.id])) === undefined) {
        throw new AppError(Errors.unknownUser, 'unknown recipient');
      }
      const follows = async (a: string, b: string) => (await at.one(this.userReads.isFollowing, [a, b])) !== undefined;
      if (!(await privateAllowed(s.private_message_policy, sender, chat.id, follows))) {
        throw new AppError(Errors.privateNotAllowed);
      }
      level = s.level;
    }
    if (image && level < MIN_IMAGE_LEVEL && !exemptFromImageLevel) {
      throw new AppError(Errors.imageLevel);
    }
  }

  private row(
    sender: Credential,
    chat: ChatRef,
    c: Content,
    markup: Markup | null,
    mentions: readonly string[],
    now: number,
    mentionAll = false,
  ): Omit<OutboxInsert, 'telegram_message_id'> {
    return {
      message_id: newId('msg'),
      chat_type: chat.type,
      group_id: chat.type === 'group' ? chat.id : null,
      to_user_id: chat.type === 'private' ? chat.id : null,
      from_user_id: senderOf(sender),
      app_id: sender.appId,
      object_name: c.objectName,
      title: c.title,
      content: c.content,
      normalized: markup === null ? null : JSON.stringify(layout(c.title, markup)),
      mention_user_ids: mentionsJson(mentions, mentionAll),
      reply_markup: c.replyMarkup === null ? null : JSON.stringify(c.replyMarkup),
      created_at: now,
      edited_at: null,
    };
  }

  async send(sender: Credential, input: SendInput): Promise<Sent> {
    const markup = parseRich(input);
    const from = senderOf(sender);
    const mentionAll = input.mentionAll === true && input.chat.type === 'group';
    const scope = `send:${sender.appId}`;
    const key = input.idempotencyKey;
    const replay = async (tx: Kysely<DB>): Promise<Sent | undefined> => {
      if (key === undefined) return undefined;
      const body = await repo.idempotentAnswer(tx, scope, key, this.clock.now() - IDEMPOTENCY_WINDOW_MS);
      if (body === undefined) return undefined;
      // The message as first sent; a key kept before rows were holds its id, read as it is now.
      const row = firstAnswer(body) ?? (await repo.findOutbox(tx, body));
      return row === undefined ? undefined : { message: messageOf({ bot: row }), replayed: true };
    };
    const earlier = await replay(this.db.k);
    if (earlier !== undefined) return earlier;
    // Tokens are taken only for a send its checks accept: a refused one (a chat that does not
    // exist, say) spends nothing and leaves no bucket behind.
    await this.admit(committed, from, input.chat, showsImage(input, markup));
    // The group's members are read only for a sender it admits (a member), and need no check.
    const mentions = mentionAll
      ? await repo.memberIds(this.db.k, input.chat.id, MAX_MENTIONS)
      : [...new Set(input.mentionUserIds.filter((id) => id !== ''))];
    if (!mentionAll && mentions.length > 0 && !(await usersExist(this.db.k, mentions))) {
      throw paramError('mention: unknown user');
    }
    // The chat's bucket first: when both are empty the 429 names the one a retry to this chat
    // meets whatever the sender's other chats do.
    const limit = this.limit([this.chatClaim(from, input.chat), this.overallClaim(from)]);
    const unnumbered = this.row(sender, input.chat, input, markup, mentions, this.clock.now(), mentionAll);
    if (key === undefined) {
      await limit();
      const number = await this.writer.write(unnumbered);
      return { message: messageOf({ bot: { ...unnumbered, telegram_message_id: number } }), replayed: false };
    }
    return this.work.run(async ({ tx }) => {
      const raced = await replay(tx);
      if (raced !== undefined) return raced;
      // The key is claimed before the tokens are taken: a repeat sent meanwhile waits on the claim
      // (SQLite runs one write at a time; PostgreSQL's key conflicts and is retried) and replays
      // this send, never refused by the limiter this send emptied.
      await repo.rememberIdempotent(
        tx,
        scope,
        key,
        unnumbered.message_id,
        unnumbered.created_at,
        unnumbered.created_at - IDEMPOTENCY_WINDOW_MS,
      );
      await limit();
      const [number] = await nextMessageNumbers(tx, this.db.dialect, 1);
      if (number === undefined) throw new Error('no message number was drawn');
      const row = { ...unnumbered, telegram_message_id: number };
      await repo.insertOutbox(tx, [row]);
      await repo.keepIdempotentAnswer(tx, scope, key, keptAnswer(row));
      return { message: messageOf({ bot: row }), replayed: false };
    });
  }

  /**
   * A bot's broadcast to its followers (needs the subscription_account permission). With an
   * Idempotency-Key it is performed once: a repeat within the window answers the first count.
   */
  async sendToFans(
    sender: Credential,
    c: Content,
    key: string | undefined,
  ): Promise<{ result: { sent: number }; replayed: boolean }> {
    const botId = this.requireBot(sender);
    const markup = parseRich(c);
    const limit = this.limit([this.overallClaim(botId)]);
    const scope = `fans:${sender.appId}`;
    return this.work.run(async ({ tx, now }) => {
      const earlier =
        key === undefined ? undefined : await repo.idempotentAnswer(tx, scope, key, now - IDEMPOTENCY_WINDOW_MS);
      if (earlier !== undefined) return { result: { sent: Number(earlier) }, replayed: true };
      if (!(await permissionsOf(tx, botId)).includes('subscription_account')) {
        throw new AppError(Errors.permissionRequired, 'sendMessageToFans needs the subscription_account permission');
      }
      const bot = await findUser(tx, botId);
      if (showsImage(c, markup) && (bot?.level ?? 0) < MIN_IMAGE_LEVEL) throw new AppError(Errors.imageLevel);
      // The key before the tokens, as a send claims it; a concurrent repeat conflicts and replays.
      // Its answer, the count, is kept once the last page is sent.
      if (key !== undefined) await repo.rememberIdempotent(tx, scope, key, '0', now, now - IDEMPOTENCY_WINDOW_MS);
      // Taken once the checks pass: a refused broadcast spends none of the bot's budget.
      await limit();
      // What every fan's row shares (all but its id, recipient and number), the rich text's layout
      // among it, made once; the followers read and their rows written a page at a time, so a
      // large following is never held whole.
      const shared = this.row(sender, { type: 'private', id: '' }, c, markup, [], now);
      let sent = 0;
      for (let after = 0; ;) {
        const page = await repo.followersAfter(tx, botId, after, FANS_PAGE);
        const last = page.at(-1);
        if (last === undefined) break;
        const numbers = await nextMessageNumbers(tx, this.db.dialect, page.length);
        await repo.insertOutbox(
          tx,
          page.map((fan, i) => ({
            ...shared,
            message_id: newId('msg'),
            to_user_id: fan.follower_id,
            telegram_message_id: numbers[i] ?? 0,
          })),
        );
        sent += page.length;
        after = last.seq;
      }
      if (key !== undefined) await repo.keepIdempotentAnswer(tx, scope, key, String(sent));
      return { result: { sent }, replayed: false };
    });
  }

  /**
   * Replaces the text (and keyboard) of one of the bot's own messages (its platform id or Telegram
   * number), or its keyboard alone (a KeyboardEdit). `refuseUnchanged`: an edit that would store
   * what is there is refused, as Telegram does.
   */
  async edit(
    sender: Credential,
    chat: ChatRef,
    messageId: string | number,
    change: Content | KeyboardEdit,
    { refuseUnchanged = false }: { refuseUnchanged?: boolean } = {},
  ): Promise<Message> {
    const from = senderOf(sender);
    return this.work.run(async ({ tx, now }) => {
      // Locked until the commit: a concurrent edit waits, then reads this one's row, so a keyboard
      // edit never writes back content it read before another edit committed (nor compares with it).
      // The row is locked before the outbox's advisory lock (0004, 0009), which is safe: no
      // transaction holding that lock then waits for a message's row.
      const row = await repo.findOutboxRef(tx, messageId, { forUpdate: this.db.dialect === 'postgres' });
      const chatId = row?.chat_type === 'group' ? row.group_id : row?.to_user_id;
      if (row === undefined || row.chat_type !== chat.type || chatId !== chat.id)
        throw new AppError(Errors.messageNotFound);
      if (row.from_user_id !== from) throw new AppError(Errors.notOwnMessage);
      const c: Content =
        'content' in change
          ? change
          : {
              objectName: row.object_name,
              rich: row.normalized !== null,
              title: row.title,
              content: row.content,
              replyMarkup: change.replyMarkup,
            };
      // Stored rich content read as it was; a plain text turned rich is checked as new.
      const markup = parseRich(c, c.content === row.content && row.normalized !== null);
      await this.admit(within(tx), from, chat, showsImage(c, markup));
      const next = this.row(sender, chat, c, markup, [], now);
      if (refuseUnchanged && unchanged(row, next)) throw new AppError(Errors.messageNotModified);
      await repo.editOutbox(tx, row.message_id, {
        content: next.content,
        normalized: next.normalized,
        reply_markup: next.reply_markup,
        object_name: next.object_name,
        edited_at: now,
      });
      const stored = await repo.findOutbox(tx, row.message_id);
      if (stored === undefined) throw new Error('outbox row vanished inside its transaction');
      return messageOf({ bot: stored });
    });
  }

  /**
   * messageView of a message just sent or edited (committed, so read outside any transaction), by
   * statements compiled once; a message that mentions users reads them all as messageView does.
   */
  async view(m: Message): Promise<MessageView> {
    if (m.mentionUserIds.length > 0) return messageView(this.db.k, m);
    const other = m.chat.type === 'private' && m.chat.id !== '' ? m.chat.id : m.fromUserId;
    const [users, group] = await Promise.all([
      this.st.viewUsers.all([m.fromUserId, other]),
      m.chat.type === 'group' ? this.st.groupTitle.first([m.chat.id]) : undefined,
    ]);
    return viewWith(m, new Map(users.map((u) => [u.user_id, u])), group?.name);
  }

  /** A bot method's chat: the given type, or a group when a group has that id, else a private chat. */
  async chat(chatId: string, chatType: 'private' | 'group' | undefined): Promise<ChatRef> {
    const type = chatType ?? ((await this.st.groupExists.first([chatId])) !== undefined ? 'group' : 'private');
    return { type, id: chatId };
  }

  /**
   * mention_type 1 mentions every member of the group (read by `send` once the send is admitted);
   * 2 (or none) the listed ids.
   */
  mentions(
    chat: ChatRef,
    mentionType: 1 | 2 | undefined,
    ids: readonly string[] | undefined,
  ): Pick<SendInput, 'mentionUserIds' | 'mentionAll'> {
    if (mentionType === 1 && chat.type === 'group') return { mentionUserIds: [], mentionAll: true };
    return { mentionUserIds: [...(ids ?? [])] };
  }

  requireBot(c: Credential): string {
    if (c.botUserId === null) throw new AppError(Errors.notABot);
    return c.botUserId;
  }
}
