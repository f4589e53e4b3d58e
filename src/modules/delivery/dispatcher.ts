// Webhook delivery: durable (the queue is the updates table), at-least-once, in Update order per
// bot, with exponential backoff honouring Retry-After (following the bot's run of failed attempts,
// not one Update's), expiry after the retention (24 hours by default). Several dispatchers
// (instances) may run on one store: each head Update is leased by an atomic UPDATE before it is
// sent, so only one of them sends it. A pass only starts deliveries: each bot has at most one in
// flight and is picked up again as soon as it ends, so a slow or hanging receiver holds its own bot
// back and nobody else.
import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { Db } from '../../db/connect.js';
import type { DB } from '../../db/types.js';
import type { UnitOfWork } from '../../db/work.js';
import type { Metrics } from '../../http/metrics.js';
import { CLOCK_SKEW_MS, type Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/crypto.js';
import { settlesWithin } from '../../lib/deadline.js';
import type { Invalidations } from '../../lib/invalidation.js';
import { UPDATES_KEY_PREFIX } from './fanout.js';
import { keptKinds } from './kinds.js';
import * as repo from './repo.js';
import { parseStored, webhookBody, type StoredUpdate } from './stored.js';
import { postWebhook, WEBHOOK_TIMEOUT_MS, type Attempt } from './webhook-post.js';

/** How long a stop waits for deliveries under way before it abandons them. */
const STOP_GRACE_MS = 1_000;

/**
 * Longer than one attempt can take, so a lease outlives its attempt but not a crashed sender, and
 * longer by the clock skew instances may have: the lease is stamped on the leasing instance's
 * clock and read on the others', and one ahead by 25 s took a 30 s lease 6 s into an attempt still
 * out and sent the same Update in parallel. 90 s with the 10 s webhook timeout.
 */
const LEASE_MS = WEBHOOK_TIMEOUT_MS + 20_000 + CLOCK_SKEW_MS;
/** Deliveries in flight on one instance, all bots together. */
const MAX_IN_FLIGHT = 256;
const IDLE_TICK_MS = 1_000;

export type DispatcherSettings = Pick<
  Config,
  'webhookAllowInsecure' | 'webhookRetryBaseMs' | 'webhookRetryMaxMs' | 'updateRetentionS'
>;

/** The delay after a run of `attempts` failed attempts and one more (1 s after the first, by default). */
export const backoffMs = (attempts: number, s: Pick<Config, 'webhookRetryBaseMs' | 'webhookRetryMaxMs'>): number =>
  Math.min(s.webhookRetryMaxMs, s.webhookRetryBaseMs * 2 ** attempts);

export const webhookId = (botUserId: string, updateId: number): string => `upd_${botUserId}_${updateId}`;

/**
 * Performs a Telegram-format receiver's 2xx answer if it is a method call, read by its Content-Type
 * (JSON, a form or multipart/form-data, as Telegram takes them); never throws.
 */
export type AnswerHandler = (
  botUserId: string,
  answer: { body: Buffer; contentType: string | undefined },
) => Promise<void>;

/**
 * The Telegram surface's wire layer, handed to the dispatcher by that surface (delivery does not
 * import it): how a stored Update is presented, and who performs the receiver's method-call answers.
 */
export interface TelegramWire {
  present: (tx: Kysely<DB>, update: StoredUpdate['update']) => Promise<unknown>;
  answer: AnswerHandler;
}

export const TELEGRAM_SECRET_HEADER = 'X-Telegram-Bot-Api-Secret-Token';

export class WebhookDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  /** Deliveries under way on this instance, by bot: at most one per bot keeps its Updates in order. */
  private readonly inFlight = new Map<string, Promise<void>>();
  private telegram: TelegramWire | undefined;
  /** Aborted by stop(): deliveries in flight end at once instead of holding the shutdown up to the webhook timeout. */
  private abort = new AbortController();

  constructor(
    private readonly db: Db,
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
    private readonly box: SecretBox,
    private readonly metrics: Metrics,
    private readonly config: DispatcherSettings,
    invalidations: Invalidations,
  ) {
    // After missed announcements, a pass finds whatever became due meanwhile.
    invalidations.listen(
      (key) => {
        if (key.startsWith(UPDATES_KEY_PREFIX) && !this.stopped) this.kick();
      },
      () => {
        if (!this.stopped) this.kick();
      },
    );
  }

  /** The Telegram surface's presenter and answer handler, for bots with payload_format telegram. */
  telegramWire(wire: TelegramWire): void {
    this.telegram = wire;
  }

  start(): void {
    this.stopped = false;
    this.kick();
  }

  /**
   * Stops starting deliveries, gives those under way STOP_GRACE_MS to end (a receiver answers in
   * milliseconds as a rule: its answer is then recorded as it was), and abandons the rest: each is
   * recorded as a failed attempt due again at once, so the next process delivers it without
   * waiting for the lease to run out, and the shutdown never waits out the webhook timeout.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    const underWay = Promise.all(this.inFlight.values());
    if (await settlesWithin(underWay, STOP_GRACE_MS)) return;
    const abort = this.abort;
    // A fresh one for deliveries started later (tick() in tests, a start() again).
    this.abort = new AbortController();
    abort.abort();
    await underWay;
  }

  /** Runs a pass now (or right after the current one). */
  kick(): void {
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.passes().finally(() => {
      this.running = undefined;
      if (!this.stopped) {
        this.timer = setTimeout(() => {
          this.kick();
        }, IDLE_TICK_MS).unref();
      }
    });
  }

  private async passes(): Promise<void> {
    do {
      this.again = false;
      try {
        // A full pass may have left due bots behind; an ended delivery kicks a pass by itself.
        if (await this.pass()) this.again = true;
      } catch {
        // The store was unreachable; the idle timer tries again.
        return;
      }
    } while (this.again && !this.stopped);
  }

  /**
   * One pass over the due head Updates, waiting for the deliveries it started; returns how many
   * were attempted. Tests call it directly; the running dispatcher does not wait.
   */
  async tick(): Promise<number> {
    const started: Promise<void>[] = [];
    await this.pass(started);
    await Promise.all(started);
    return started.length;
  }

  /** Starts the due deliveries (adding them to `started`); true when it found as many as it had room for. */
  private async pass(started: Promise<void>[] = []): Promise<boolean> {
    const now = this.clock.now();
    // Alone, outside the unit of work, touching no key: one statement in every pass (one per
    // thousand expired Updates after downtime).
    const dropped = await repo.expireUpdates(this.db.k, now - this.config.updateRetentionS * 1000, now);
    if (dropped > 0) this.metrics.updatesDropped.inc(dropped);
    const room = MAX_IN_FLIGHT - this.inFlight.size;
    if (room <= 0) return false;
    const far = this.farMs();
    const heads = await repo.dueHeads(this.db.k, now, room, far);
    const until = now + LEASE_MS;
    for (const h of heads) {
      if (!this.inFlight.has(h.bot_user_id) && (await this.lease(h, now, until, far))) {
        started.push(this.track(h, until));
      }
    }
    return heads.length === room;
  }

  private track(h: repo.DueHead, until: number): Promise<void> {
    const delivery = this.deliver(h, until)
      // The outcome could not be recorded (store unreachable): the lease runs out and it is tried again.
      .catch(() => undefined)
      .finally(() => {
        this.inFlight.delete(h.bot_user_id);
        // The bot's next Update may be due now.
        if (!this.stopped) this.kick();
      });
    this.inFlight.set(h.bot_user_id, delivery);
    return delivery;
  }

  private lease(h: repo.DueHead, now: number, until: number, farMs: number): Promise<boolean> {
    // Alone, outside the unit of work: one atomic statement per delivery, touching no key; a transaction adds round trips.
    return repo.leaseUpdate(this.db.k, h.seq, now, until, farMs);
  }

  /**
   * Further than any attempt is scheduled: a lease, or the longest backoff (Retry-After is capped
   * by it too) after an attempt that ended within its lease, stamped by an instance up to the skew
   * ahead. An Update due further away was stamped by a clock since set back (or briefly far ahead)
   * and is due now (repo.dueHeads).
   */
  private farMs(): number {
    return LEASE_MS + this.config.webhookRetryMaxMs + CLOCK_SKEW_MS;
  }

  /** The body and extra headers of a delivery in the bot's payload format. */
  private async request(
    h: repo.DueHead,
    stored: StoredUpdate,
    key: string,
  ): Promise<{ body: string; headers: Record<string, string> }> {
    if (h.payload_format !== 'telegram') return { body: webhookBody(stored, h.payload_format), headers: {} };
    if (this.telegram === undefined) throw new Error('the Telegram surface has not registered its wire layer');
    const update = await this.telegram.present(this.db.k, stored.update);
    // secret_token becomes the Webhook Key, so the receiver gets back the token it set.
    return { body: JSON.stringify(update), headers: { [TELEGRAM_SECRET_HEADER]: key } };
  }

  /** Sends a due Update leased until `until`. */
  private async deliver(h: repo.DueHead, until: number): Promise<void> {
    // Taken before any wait: a stop meanwhile aborts this one, not the fresh one it leaves behind.
    const { signal } = this.abort;
    if (h.webhook_key_enc === null) return;
    const now = this.clock.now();
    const stored = parseStored(h.payload);
    // allowed_updates is a setting of the Telegram surface, for what it presents: the native
    // formats (update, flat) are not filtered by it, as the native getUpdates is not.
    const kinds = h.payload_format === 'telegram' ? keptKinds(h.allowed_updates) : undefined;
    // Kinds the bot did not ask for are confirmed unsent, as getUpdates does.
    if (kinds !== undefined && !kinds.some((kind) => kind in stored.update)) {
      // Alone, outside the unit of work: one statement per skipped Update on the delivery path, touching no key.
      await repo.deleteUpdate(this.db.k, h.seq);
      return;
    }
    const key = this.box.open(h.webhook_key_enc);
    const { body, headers } = await this.request(h, stored, key);
    const telegram = h.payload_format === 'telegram';
    const attempt = await postWebhook({
      url: h.webhook_url,
      key,
      id: webhookId(h.bot_user_id, h.update_id),
      body,
      headers,
      keepBody: telegram,
      allowInsecure: this.config.webhookAllowInsecure,
      now,
      signal,
    });
    // The backoff runs from the answer: counted from the start, a receiver slower than the delay
    // was tried again as soon as it failed.
    const ended = this.clock.now();
    this.metrics.webhookAttempts.inc({ outcome: attempt.ok ? 'delivered' : 'failed' });
    // Recorded at the attempt's start (`now`), not at the commit's.
    await this.work.run(async ({ tx }) => {
      await repo.insertDelivery(tx, {
        bot_user_id: h.bot_user_id,
        update_id: h.update_id,
        url: h.webhook_url,
        attempt: h.attempts + 1,
        status_code: attempt.status,
        error: attempt.error,
        duration_ms: Math.round(attempt.durationMs),
        created_at: now,
        payload: attempt.ok ? null : h.payload,
      });
      if (attempt.ok) {
        await repo.deleteUpdate(tx, h.seq);
        await repo.endStreak(tx, h.bot_user_id);
      } else {
        await this.failed(tx, h, attempt, now, ended);
        await repo.endLease(tx, h.seq, until);
      }
    });
    if (attempt.ok && telegram && attempt.body !== undefined && attempt.body.length > 0) {
      await this.telegram?.answer(h.bot_user_id, { body: attempt.body, contentType: attempt.contentType });
    }
  }

  /**
   * Records a failed attempt made at `now` that ended at `ended`, and when to try again. The backoff
   * follows the bot's run of failures (`webhook_fail_streak`), not the Update's attempts: once a head
   * that failed for its whole retention is dropped, the next one goes on from the same step (10
   * minutes apart) rather than from 1 s, and the bot is held (`webhook_not_before`) whichever
   * Update is its head then. While one Update fails from the start the two counts are the same.
   */
  private async failed(tx: Kysely<DB>, h: repo.DueHead, attempt: Attempt, now: number, ended: number): Promise<void> {
    // Retry-After may ask for more than the backoff, never more than its cap (decisions.md section 2).
    const retryAfter = Math.min(attempt.retryAfterMs ?? 0, this.config.webhookRetryMaxMs);
    const streak = h.webhook_fail_streak ?? 0;
    // Abandoned by a shutdown: due again at once, for whichever process runs next.
    const delay = attempt.abandoned === true ? 0 : Math.max(backoffMs(streak, this.config), retryAfter);
    const at = ended + delay;
    if (await repo.retryLater(tx, h, { url: h.webhook_url, at, error: attempt.error })) {
      await repo.failStreak(tx, h.bot_user_id, h.webhook_url, at);
    }
    // Nor does the old receiver's failure show as the new URL's last error.
    await repo.noteWebhookError(tx, h.bot_user_id, h.webhook_url, now, attempt.error);
  }
}
