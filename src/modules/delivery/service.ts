// How bots receive Updates: long polling (getUpdates) and the webhook settings. Webhook delivery
// itself runs in dispatcher.ts.
import { randomBytes } from 'node:crypto';
import type { Config } from '../../config.js';
import type { Db } from '../../db/connect.js';
import { UnitOfWork, type Work } from '../../db/work.js';
import type { PayloadFormat } from '../../db/types.js';
import { AppError, asError, Errors, type ErrorDef } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/crypto.js';
import { newWebhookKey } from '../../lib/ids.js';
import { KEY_RESET_PREFIX, type Invalidations } from '../../lib/invalidation.js';
import type { Bus } from '../../lib/shared-state.js';
import { findBot } from '../bots/index.js';
import { UPDATES_KEY_PREFIX, updatesKey } from './fanout.js';
import { updateKinds } from './kinds.js';
import * as repo from './repo.js';
import { parseStored, type UpdateObject } from './stored.js';
import { VettedWebhookUrl } from './webhook-url.js';

const MAX_LIMIT = 100;
const MAX_TIMEOUT_S = 50;
const POLLS = 'polls';
/** While the bus is cut (Redis lost), how often held polls look in the store for their Updates. */
const CUT_SWEEP_MS = 1_000;
/** Touched when a bot's Webhook URL is set: it ends every poll of the bot, on every instance. */
const WEBHOOK_KEY_PREFIX = 'webhook:';

/**
 * How a held poll ends: an ending is the error it answers (409: another getUpdates, or setWebhook;
 * the unauthorised call's answer: its App Key was reset).
 */
type Outcome = 'update' | 'timeout' | ErrorDef;

/**
 * The offset a poll reads with. One beyond the next id the bot would give out (a bot that kept
 * another server's offset, Telegram's say) confirms nothing and reads from the oldest pending
 * Update, as tdlib answers a from_id in the future: taken as given, it deleted every pending Update
 * and hid new ones until the ids reached it. It reads at least once (1, the first id), never in the
 * at-most-once mode of no offset.
 */
const coreOffset = (asked: number, lastUpdateId: number): number => (asked > lastUpdateId + 1 ? 1 : asked);

/** A getUpdates's answer: the Updates it sends, or the error it ends with. */
export type PollResult = { updates: UpdateObject[] } | { error: Error };

/**
 * One getUpdates, from its claim to its answer. While held it is all that is kept of the poll (with
 * `answer` and its place in an Expiry): no promise chain, suspended frame or timer of its own, as a
 * held poll counts 10,000 times.
 */
interface Waiter {
  botId: string;
  pollId: string;
  offset: number;
  limit: number;
  allowedUpdates: readonly string[] | undefined;
  answer: (result: PollResult) => void;
  woken: boolean;
  /** Another getUpdates or a webhook took over, or the key was reset: the error this poll answers. */
  endedBy: ErrorDef | undefined;
  /** Its own announcement has come back over the bus: polls announced after that are newer. */
  announced: boolean;
  /** The polls it times out with, while it is held. */
  expiry?: Expiry;
}

/**
 * Deadlines are rounded up to this (ms): the polls held within one such span with the same timeout
 * share an Expiry, and answer at most this much after their timeout, never before.
 */
const EXPIRY_GRAIN_MS = 50;

/**
 * Held polls that time out together, with one timer between them: a Timeout for each poll (with its
 * argument list) was about 270 bytes of heap, 2.7 MB for 10,000 held polls.
 */
interface Expiry {
  readonly at: number;
  readonly waiters: Set<Waiter>;
  timer?: NodeJS.Timeout;
}

export interface PollParams {
  offset?: number | undefined;
  limit?: number | undefined;
  timeout?: number | undefined;
  /** Update kinds wanted ("message", "callback_query"); others are confirmed unsent. */
  allowedUpdates?: readonly string[] | undefined;
  /** Runs once the poll is taken (the bot exists, no webhook is set after the claim), before it reads or waits. */
  accepted?: (() => Promise<unknown>) | undefined;
}

/**
 * The Webhook Key as Standard Webhooks libraries take it: `whsec_` + base64 of the key's UTF-8
 * bytes, the same bytes the callbacks are signed with (decisions.md section 7).
 */
export const webhookSecret = (key: string): string => `whsec_${Buffer.from(key, 'utf8').toString('base64')}`;

export interface WebhookSettings {
  secretToken?: string | undefined;
  payloadFormat?: PayloadFormat | undefined;
  dropPendingUpdates?: boolean | undefined;
  /** The Telegram setWebhook's max_connections, in 1 to 100: kept and reported there; none natively. */
  maxConnections?: number | undefined;
}

export class DeliveryService {
  private readonly waiters = new Map<string, Waiter>();
  /** Held polls by the time they expire (a multiple of EXPIRY_GRAIN_MS). */
  private readonly expiries = new Map<number, Expiry>();
  /** Runs while the bus is cut and polls are held (see sweepWhileCut). */
  private sweep: NodeJS.Timeout | undefined;
  private sweeping = false;
  constructor(
    private readonly db: Db,
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
    private readonly box: SecretBox,
    private readonly bus: Bus,
    private readonly invalidations: Invalidations,
    private readonly config: Pick<Config, 'webhookAllowInsecure' | 'updateRetentionS'>,
  ) {
    invalidations.listen(
      (key) => {
        if (key.startsWith(UPDATES_KEY_PREFIX)) this.wake(key.slice(UPDATES_KEY_PREFIX.length));
        if (key.startsWith(WEBHOOK_KEY_PREFIX)) {
          this.terminate(key.slice(WEBHOOK_KEY_PREFIX.length), Errors.pollEndedByWebhook);
        }
        // Answered as a call with the old key is now (401 on the Telegram surface): libraries stop
        // polling on an auth error, where a 409 would have them poll again with the revoked token.
        if (key.startsWith(KEY_RESET_PREFIX))
          this.terminate(key.slice(KEY_RESET_PREFIX.length), Errors.apiKeyUnavailable);
      },
      // A missed `updates:` would leave its poll waiting out its timeout (up to 50 s) with Updates
      // pending, a missed key reset or webhook the poll held. Answered empty now, each client calls
      // again at once: that call reads what is pending, or is refused by a key the gap uncached.
      () => {
        this.endAll();
      },
    );
    bus.onCut(() => {
      this.sweepWhileCut();
    });
    // A getUpdates on another instance ends this instance's poll of the same bot. The bus hands
    // every instance the announcements in one order, its own included: one that arrives before
    // this poll's own has come back was made before this poll started (by a poll already over, or
    // an older one that this poll's announcement ends where it is held), so only announcements
    // after it end this poll.
    bus.subscribe(POLLS, (message) => {
      const [botId = '', pollId = ''] = message.split('\n');
      const waiter = this.waiters.get(botId);
      if (waiter === undefined) return;
      if (waiter.pollId === pollId) waiter.announced = true;
      else if (waiter.announced) this.end(botId, waiter, Errors.pollTerminated);
    });
  }

  /** Long polls held by this instance (for metrics and the memory benchmark). */
  get polling(): number {
    return this.waiters.size;
  }

  /** Answers every long poll held here at once, empty: the server is stopping, or announcements were missed. */
  endAll(): void {
    for (const [botId, waiter] of this.waiters) this.end(botId, waiter, 'timeout');
  }

  /** The bot's webhook was set, or its key reset: its poll can receive nothing more. */
  private terminate(botId: string, reason: ErrorDef): void {
    const waiter = this.waiters.get(botId);
    if (waiter !== undefined) this.end(botId, waiter, reason);
  }

  private wake(botId: string): void {
    const waiter = this.waiters.get(botId);
    if (waiter === undefined) return;
    waiter.woken = true;
    this.settle(waiter, 'update');
  }

  private end(botId: string, waiter: Waiter, outcome: Outcome): void {
    if (this.waiters.get(botId) === waiter) this.waiters.delete(botId);
    waiter.woken = true;
    if (typeof outcome === 'object') waiter.endedBy = outcome;
    this.settle(waiter, outcome);
  }

  /** Resumes a held poll (once: it leaves its Expiry); one still being opened sees `woken` instead. */
  private settle(waiter: Waiter, outcome: Outcome): void {
    const { expiry } = waiter;
    if (expiry === undefined) return;
    waiter.expiry = undefined;
    expiry.waiters.delete(waiter);
    if (expiry.waiters.size === 0 && this.expiries.get(expiry.at) === expiry) {
      clearTimeout(expiry.timer);
      this.expiries.delete(expiry.at);
    }
    void this.resume(waiter, outcome);
  }

  private readonly expire = (expiry: Expiry): void => {
    if (this.expiries.get(expiry.at) === expiry) this.expiries.delete(expiry.at);
    for (const waiter of expiry.waiters) this.settle(waiter, 'timeout');
  };

  /** Holds the poll until it is woken, ended or timed out; false when it was woken already. */
  private wait(waiter: Waiter, ms: number): boolean {
    if (waiter.woken) return false;
    const now = performance.now();
    const at = Math.ceil((now + ms) / EXPIRY_GRAIN_MS) * EXPIRY_GRAIN_MS;
    let expiry = this.expiries.get(at);
    if (expiry === undefined) {
      expiry = { at, waiters: new Set() };
      expiry.timer = setTimeout(this.expire, Math.ceil(at - now), expiry);
      this.expiries.set(at, expiry);
    }
    expiry.waiters.add(waiter);
    waiter.expiry = expiry;
    if (this.bus.cut) this.sweepWhileCut();
    return true;
  }

  /**
   * While the bus is cut, an Update written on another instance wakes no poll held here: each
   * second the held polls' bots are looked up in the store, and those with an Update pending are
   * woken. Stops once the bus is back (its gap answers every held poll) or nothing is held.
   */
  private sweepWhileCut(): void {
    if (this.sweep !== undefined) return;
    this.sweep = setInterval(() => {
      void this.wakePending();
    }, CUT_SWEEP_MS).unref();
  }

  private async wakePending(): Promise<void> {
    if (!this.bus.cut || this.waiters.size === 0) {
      clearInterval(this.sweep);
      this.sweep = undefined;
      return;
    }
    // One sweep at a time: with the store slow, ticks would otherwise pile sweeps onto its pool.
    if (this.sweeping) return;
    this.sweeping = true;
    const held = [...this.waiters.values()].filter((w) => w.expiry !== undefined).map((w) => w.botId);
    try {
      for (const botId of await repo.botsWithPending(this.db.k, held, this.notBefore())) this.wake(botId);
    } catch {
      // The store is unreachable: the next sweep asks again.
    } finally {
      this.sweeping = false;
    }
  }

  /** Ends any other poll of the bot (here and elsewhere) and registers this one. */
  private claim(botId: string, p: Pick<Waiter, 'offset' | 'limit' | 'allowedUpdates' | 'answer'>): Waiter {
    const previous = this.waiters.get(botId);
    if (previous !== undefined) this.end(botId, previous, Errors.pollTerminated);
    const waiter: Waiter = {
      botId,
      pollId: randomBytes(8).toString('hex'),
      ...p,
      woken: false,
      endedBy: undefined,
      announced: false,
    };
    this.waiters.set(botId, waiter);
    this.bus.publish(POLLS, `${botId}\n${waiter.pollId}`);
    return waiter;
  }

  /** getUpdates for callers that hold no poll of their own (the Telegram surface, tests). */
  async getUpdates(botId: string, p: PollParams): Promise<UpdateObject[]> {
    const result = await new Promise<PollResult>((resolve) => {
      this.poll(botId, p, resolve);
    });
    if ('error' in result) throw result.error;
    return result.updates;
  }

  /**
   * getUpdates: `answer` is called once, with the Updates or the error. A poll with nothing
   * pending waits up to its timeout for one, held as its Waiter alone. `answer` must not throw:
   * nothing up its stack could catch it (reply.send and a promise's resolve do not).
   */
  poll(botId: string, p: PollParams, answer: (result: PollResult) => void): void {
    void this.open(botId, p, answer);
  }

  private async open(botId: string, p: PollParams, answer: (result: PollResult) => void): Promise<void> {
    let waiter: Waiter | undefined;
    let result: PollResult;
    try {
      const bot = await findBot(this.db.k, botId);
      if (bot === undefined) throw new AppError(Errors.unknownBot);
      if (bot.webhook_url !== null) throw new AppError(Errors.webhookActive);
      const limit = Math.min(Math.max(p.limit ?? MAX_LIMIT, 1), MAX_LIMIT);
      const timeoutMs = Math.min(Math.max(p.timeout ?? 0, 0), MAX_TIMEOUT_S) * 1000;
      const offset = coreOffset(p.offset ?? 0, bot.last_update_id);
      // Registered before the first read, so an Update committed in between still wakes this poll.
      waiter = this.claim(botId, { offset, limit, allowedUpdates: updateKinds(p.allowedUpdates), answer });
      // A webhook committed after findBot whose announcement came before the claim ended no poll:
      // looked at again, so this poll does not hand out Updates the dispatcher delivers too. One set
      // later ends the claimed poll when its announcement comes.
      if (await repo.webhookSet(this.db.k, botId)) throw new AppError(Errors.webhookActive);
      // After the claim: a webhook set while this waits wakes (ends) the poll it already knows.
      await p.accepted?.();
      if (offset > 0) await repo.confirmBelow(this.db.k, botId, offset);
      let rows = await this.read(botId, offset, limit);
      if (rows.length === 0 && timeoutMs > 0) {
        if (this.wait(waiter, timeoutMs)) return;
        rows = await this.read(botId, offset, limit);
      }
      result = { updates: await this.respond(waiter, rows) };
    } catch (error) {
      result = { error: asError(error) };
    }
    if (waiter !== undefined) this.release(waiter);
    answer(result);
  }

  private async resume(waiter: Waiter, outcome: Outcome): Promise<void> {
    let result: PollResult;
    try {
      if (typeof outcome === 'object') throw new AppError(outcome);
      const rows = outcome === 'update' ? await this.read(waiter.botId, waiter.offset, waiter.limit) : [];
      result = { updates: await this.respond(waiter, rows) };
    } catch (error) {
      result = { error: asError(error) };
    }
    this.release(waiter);
    waiter.answer(result);
  }

  /** The Updates a poll sends from the rows it read, confirming what it may. */
  private async respond(waiter: Waiter, rows: { update_id: number; payload: string }[]): Promise<UpdateObject[]> {
    if (waiter.endedBy !== undefined) throw new AppError(waiter.endedBy);
    const updates = rows.map((r) => ({ id: r.update_id, update: parseStored(r.payload).update }));
    const wanted = waiter.allowedUpdates;
    const sent = wanted === undefined ? updates : updates.filter((u) => wanted.some((kind) => kind in u.update));
    // Without an offset, what is sent counts as confirmed (clients that never advance it);
    // kinds the bot does not want are confirmed either way.
    const confirmed = waiter.offset === 0 ? updates : updates.filter((u) => !sent.includes(u));
    await repo.deleteUpdates(
      this.db.k,
      waiter.botId,
      confirmed.map((u) => u.id),
    );
    return sent.map((u) => u.update);
  }

  private release(waiter: Waiter): void {
    if (this.waiters.get(waiter.botId) === waiter) this.waiters.delete(waiter.botId);
  }

  private read(botId: string, offset: number, limit: number) {
    return repo.pendingUpdates(this.db.k, botId, offset, this.notBefore(), limit);
  }

  /** Updates older than the retention (24 hours by default) are no longer pending. */
  private notBefore(): number {
    return this.clock.now() - this.config.updateRetentionS * 1000;
  }

  vet(url: string): Promise<VettedWebhookUrl> {
    return VettedWebhookUrl.vet(url, this.config.webhookAllowInsecure);
  }

  async setWebhook(botId: string, url: string, s: WebhookSettings) {
    const vetted = await this.vet(url);
    return this.work.run((w) => this.setWebhookIn(w, botId, vetted, s));
  }

  /** Switches the bot to webhook mode; a new Webhook Key unless the URL is unchanged or one is named. */
  async setWebhookIn(
    w: Work,
    botId: string,
    url: VettedWebhookUrl,
    s: WebhookSettings,
  ): Promise<{ url: string; webhook_key: string; webhook_secret: string; payload_format: PayloadFormat }> {
    if (url.problem !== undefined) throw new AppError(Errors.paramError, `url: ${url.problem}`);
    const bot = await findBot(w.tx, botId);
    if (bot === undefined) throw new AppError(Errors.unknownBot);
    const kept =
      bot.webhook_url === url.url && bot.webhook_key_enc !== null ? this.box.open(bot.webhook_key_enc) : undefined;
    const key = s.secretToken ?? kept ?? newWebhookKey();
    const format = s.payloadFormat ?? bot.payload_format;
    await repo.setWebhook(w.tx, botId, {
      url: url.url,
      keyEnc: this.box.seal(key),
      format,
      maxConnections: s.maxConnections ?? null,
    });
    // Another receiver (or webhook mode after polling, when the URL was null) starts afresh.
    if (bot.webhook_url !== url.url) await repo.restartRetries(w.tx, botId, this.clock.now());
    if (s.dropPendingUpdates === true) await repo.dropPending(w.tx, botId);
    // A poll held now can no longer receive anything; the dispatcher takes over the queue.
    w.touch(`${WEBHOOK_KEY_PREFIX}${botId}`);
    w.touch(updatesKey(botId));
    return { url: url.url, webhook_key: key, webhook_secret: webhookSecret(key), payload_format: format };
  }

  deleteWebhook(botId: string, dropPendingUpdates: boolean): Promise<true> {
    return this.work.run((w) => this.deleteWebhookIn(w, botId, dropPendingUpdates));
  }

  /** Back to long polling; pending Updates stay for getUpdates unless dropped. */
  async deleteWebhookIn(w: Work, botId: string, dropPendingUpdates: boolean): Promise<true> {
    if ((await findBot(w.tx, botId)) === undefined) throw new AppError(Errors.unknownBot);
    await repo.clearWebhook(w.tx, botId);
    if (dropPendingUpdates) await repo.dropPending(w.tx, botId);
    return true;
  }

  /**
   * The native getWebhookInfo. max_connections is 1: the native setWebhook takes no maximum, and
   * deliveries go one at a time (a maximum set through the Telegram surface is reported there).
   */
  async webhookInfo(botId: string) {
    const { bot, state } = await this.webhookState(botId);
    return {
      ...state,
      max_connections: 1,
      // Empty without a webhook, like url and the other fields.
      webhook_secret: bot.webhook_key_enc === null ? '' : webhookSecret(this.box.open(bot.webhook_key_enc)),
    };
  }

  /**
   * The Telegram getWebhookInfo's part of it: max_connections is what the Telegram setWebhook kept
   * (null: none given there). Deliveries still go one at a time, which is within any maximum.
   */
  async telegramWebhookInfo(botId: string) {
    const { bot, state } = await this.webhookState(botId);
    return { ...state, max_connections: bot.webhook_max_connections };
  }

  private async webhookState(botId: string) {
    const bot = await findBot(this.db.k, botId);
    if (bot === undefined) throw new AppError(Errors.unknownBot);
    const state = {
      url: bot.webhook_url ?? '',
      pending_update_count: await repo.pendingCount(this.db.k, botId, this.notBefore()),
      last_error_date: bot.last_error_at === null ? 0 : Math.floor(bot.last_error_at / 1000),
      last_error_message: bot.last_error_message ?? '',
    };
    return { bot, state };
  }

  /**
   * Sends a failed delivery's Update again, now: at once if it is still queued (skipping the
   * backoff), else queued anew from the copy the failed attempt kept. Refused while an attempt of
   * it is under way (leased): that attempt's outcome decides, and a failure can be redelivered.
   */
  async redeliverIn(
    w: Work,
    bot: { bot_user_id: string; webhook_url: string | null },
    deliveryId: number,
  ): Promise<void> {
    const botId = bot.bot_user_id;
    const d = await repo.findDelivery(w.tx, botId, deliveryId);
    if (d === undefined) throw new AppError(Errors.unknownDelivery);
    if (d.error === null || (await repo.laterSuccess(w.tx, botId, d.update_id, d.seq))) {
      throw new AppError(Errors.deliveryNotFailed);
    }
    if (bot.webhook_url === null) throw new AppError(Errors.webhookNotSet);
    const queued = await repo.retryNow(w.tx, botId, d.update_id, w.now);
    if (queued === 'leased') throw new AppError(Errors.deliveryInFlight);
    if (queued === 'gone') {
      // Looked at again: on PostgreSQL a success that committed since the look above (its delete
      // of the queued Update is what made it gone) is visible to this statement only.
      if (d.payload === null || (await repo.laterSuccess(w.tx, botId, d.update_id, d.seq))) {
        throw new AppError(Errors.deliveryNotFailed);
      }
      await repo.insertUpdate(w.tx, {
        bot_user_id: botId,
        update_id: d.update_id,
        payload: d.payload,
        created_at: w.now,
      });
    }
    // Nor is it held by the bot's backoff; its run of failures goes on if this attempt fails too.
    await repo.releaseBot(w.tx, botId);
    w.touch(updatesKey(botId));
  }

  async answerCallbackQuery(botId: string, callbackId: string, text: string | null, showAlert: boolean): Promise<true> {
    const query = await repo.findCallbackQuery(this.db.k, callbackId);
    if (query?.bot_user_id !== botId) throw new AppError(Errors.unknownCallbackQuery);
    if (!(await repo.answerCallbackQuery(this.db.k, callbackId, { text, showAlert }, this.clock.now()))) {
      throw new AppError(Errors.unknownCallbackQuery, 'Bad Request: query was already answered');
    }
    return true;
  }
}
