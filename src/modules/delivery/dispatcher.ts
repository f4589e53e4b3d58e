// Webhook delivery: durable (the queue is the updates table), at-least-once, in Update order per
// bot, with exponential backoff honouring Retry-After, expiry after 24 hours. Several dispatchers
// (instances) may run on one store: each head Update is leased by an atomic UPDATE before it is
// sent, so only one of them sends it.
import { sql, type Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { Db } from '../../db/connect.js';
import type { DB } from '../../db/types.js';
import type { Metrics } from '../../http/metrics.js';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/crypto.js';
import type { Invalidations } from '../../lib/invalidation.js';
import { UPDATES_KEY_PREFIX } from './fanout.js';
import { expireDeliveries, expireUpdates } from './repo.js';
import { KEEP_UPDATES_MS } from './service.js';
import { parseStored, webhookBody } from './stored.js';
import { postWebhook, WEBHOOK_TIMEOUT_MS, type Attempt } from './webhook-http.js';

const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 10 * 60_000;
/** Longer than one attempt can take, so a lease outlives its attempt but not a crashed sender. */
const LEASE_MS = WEBHOOK_TIMEOUT_MS + 20_000;
const BATCH = 64;
const IDLE_TICK_MS = 1_000;
/** The delivery log the developer site shows (and redelivers from) covers a week. */
export const KEEP_DELIVERIES_MS = 7 * 24 * 3600 * 1000;

export const backoffMs = (attempts: number): number => Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** attempts);

export const webhookId = (botUserId: string, updateId: number): string => `upd_${botUserId}_${updateId}`;

type Head = Awaited<ReturnType<typeof dueHeads>>[number];

function dueHeads(tx: Kysely<DB>, now: number) {
  return tx
    .selectFrom('updates as u')
    .innerJoin('bots as b', 'b.bot_user_id', 'u.bot_user_id')
    .select([
      'u.seq',
      'u.bot_user_id',
      'u.update_id',
      'u.payload',
      'u.attempts',
      'u.created_at',
      'b.webhook_url',
      'b.webhook_key_enc',
      'b.payload_format',
    ])
    .where('b.webhook_url', 'is not', null)
    .where('u.next_attempt_at', '<=', now)
    .where('u.update_id', '=', (eb) =>
      eb
        .selectFrom('updates as h')
        .select((h) => h.fn.min('h.update_id').as('m'))
        .whereRef('h.bot_user_id', '=', 'u.bot_user_id'),
    )
    .orderBy('u.next_attempt_at')
    .limit(BATCH)
    .execute();
}

export class WebhookDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly box: SecretBox,
    private readonly metrics: Metrics,
    private readonly config: Pick<Config, 'webhookAllowInsecure'>,
    invalidations: Invalidations,
  ) {
    invalidations.listen((key) => {
      if (key.startsWith(UPDATES_KEY_PREFIX) && !this.stopped) this.kick();
    });
  }

  start(): void {
    this.stopped = false;
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
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
        // A pass that delivered something may have uncovered the next Update of a bot.
        if ((await this.tick()) > 0) this.again = true;
      } catch {
        // The store was unreachable; the idle timer tries again.
        return;
      }
    } while (this.again && !this.stopped);
  }

  /** One pass over the due head Updates; returns how many were attempted. Tests call it directly. */
  async tick(): Promise<number> {
    const now = this.clock.now();
    const dropped = await expireUpdates(this.db.k, now - KEEP_UPDATES_MS);
    if (dropped > 0) this.metrics.updatesDropped.inc(dropped);
    await expireDeliveries(this.db.k, now - KEEP_DELIVERIES_MS);
    const heads = await dueHeads(this.db.k, now);
    const mine = (await Promise.all(heads.map(async (h) => ((await this.lease(h, now)) ? h : undefined)))).filter(
      (h): h is Head => h !== undefined,
    );
    await Promise.all(mine.map((h) => this.deliver(h)));
    return mine.length;
  }

  private async lease(h: Head, now: number): Promise<boolean> {
    const r = await this.db.k
      .updateTable('updates')
      .set({ next_attempt_at: now + LEASE_MS })
      .where('seq', '=', h.seq)
      .where('next_attempt_at', '<=', now)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  private async deliver(h: Head): Promise<void> {
    if (h.webhook_url === null || h.webhook_key_enc === null) return;
    const now = this.clock.now();
    const attempt = await postWebhook({
      url: h.webhook_url,
      key: this.box.open(h.webhook_key_enc),
      id: webhookId(h.bot_user_id, h.update_id),
      body: webhookBody(parseStored(h.payload), h.payload_format),
      allowInsecure: this.config.webhookAllowInsecure,
      now,
    });
    this.metrics.webhookAttempts.inc({ outcome: attempt.ok ? 'delivered' : 'failed' });
    await this.db.k.transaction().execute(async (tx) => {
      await tx
        .insertInto('webhook_deliveries')
        .values({
          bot_user_id: h.bot_user_id,
          update_id: h.update_id,
          url: h.webhook_url ?? '',
          attempt: h.attempts + 1,
          status_code: attempt.status,
          error: attempt.error,
          duration_ms: Math.round(attempt.durationMs),
          created_at: now,
          payload: attempt.ok ? null : h.payload,
        })
        .execute();
      if (attempt.ok) {
        await tx.deleteFrom('updates').where('seq', '=', h.seq).execute();
      } else {
        await this.failed(tx, h, attempt, now);
      }
    });
  }

  private async failed(tx: Kysely<DB>, h: Head, attempt: Attempt, now: number): Promise<void> {
    const delay = Math.max(backoffMs(h.attempts), attempt.retryAfterMs ?? 0);
    await tx
      .updateTable('updates')
      .set({ attempts: sql`attempts + 1`, next_attempt_at: now + delay, last_error: attempt.error })
      .where('seq', '=', h.seq)
      .execute();
    await tx
      .updateTable('bots')
      .set({ last_error_at: now, last_error_message: attempt.error })
      .where('bot_user_id', '=', h.bot_user_id)
      .execute();
  }
}
