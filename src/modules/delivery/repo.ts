import {
  expressionBuilder,
  sql,
  type Expression,
  type ExpressionBuilder,
  type Insertable,
  type Kysely,
  type NotNull,
  type SqlBool,
} from 'kysely';
import type { Config } from '../../config.js';
import { deleteOlder } from '../../db/rows.js';
import type { CallbackQueriesTable, DB, PayloadFormat, WebhookDeliveriesTable } from '../../db/types.js';
import { type BatchContext, json, jsonList, run, statement } from '../events/index.js';

/** Whether the bot has a Webhook URL now. */
export const webhookSet = async (tx: Kysely<DB>, botUserId: string): Promise<boolean> =>
  ((await tx.selectFrom('bots').select('webhook_url').where('bot_user_id', '=', botUserId).executeTakeFirst())
    ?.webhook_url ?? null) !== null;

/**
 * Bots in a group, and whether each may listen to every group message. Read through the partial
 * index of bot members (group_members_bots, 0012), not every member row of the group: `is_bot = 1`
 * is a literal, as the index's predicate, so that both planners match it.
 */
export const botsInGroup = (tx: Kysely<DB>, groupId: string) =>
  tx
    .selectFrom('group_members')
    .innerJoin('bots', 'bots.bot_user_id', 'group_members.user_id')
    .leftJoin('bot_permissions', (join) =>
      join
        .onRef('bot_permissions.bot_user_id', '=', 'bots.bot_user_id')
        .on('bot_permissions.permission', '=', 'listen_group_messages'),
    )
    .select(['bots.bot_user_id', 'bot_permissions.permission'])
    .where('group_members.group_id', '=', groupId)
    .where('group_members.is_bot', '=', sql.lit(1))
    .orderBy('bots.bot_user_id')
    .execute();

export interface GroupBot {
  group_id: string;
  bot_user_id: string;
  permission: string | null;
}

const botsOfGroups = statement(
  (_, list) => `SELECT group_members.group_id, bots.bot_user_id, bot_permissions.permission
    FROM group_members JOIN bots ON bots.bot_user_id = group_members.user_id
    LEFT JOIN bot_permissions ON bot_permissions.bot_user_id = bots.bot_user_id
      AND bot_permissions.permission = 'listen_group_messages'
    WHERE group_members.group_id IN (SELECT r.id FROM ${list('id')} AS r) AND group_members.is_bot = 1
    ORDER BY group_members.group_id, bots.bot_user_id`,
);

/** botsInGroup for many groups at once, in the same order within each group. */
export const botsInGroups = (ctx: BatchContext, groupIds: Iterable<string>): Promise<GroupBot[]> =>
  run<GroupBot>(ctx, botsOfGroups, [jsonList(new Set(groupIds))]);

/** Takes the bot's next Update id (ids rise by one per bot). */
export async function nextUpdateId(tx: Kysely<DB>, botUserId: string): Promise<number> {
  const row = await tx
    .updateTable('bots')
    .set({ last_update_id: sql`last_update_id + 1` })
    .where('bot_user_id', '=', botUserId)
    .returning('last_update_id')
    .executeTakeFirstOrThrow();
  return row.last_update_id;
}

const advance = statement(
  (rows) => `UPDATE bots SET last_update_id = bots.last_update_id + r.n
    FROM ${rows({ id: 'text', n: 'int' })} AS r WHERE bots.bot_user_id = r.id
    RETURNING bots.bot_user_id, bots.last_update_id`,
);

/**
 * nextUpdateId taken `n` times for each bot in one statement (its row locks held until commit, as
 * nextUpdateId's are): the last id each bot now has; its new ids are the `n` up to it. On
 * PostgreSQL the bots' rows are locked first in bot id order (an UPDATE ... FROM locks in whatever
 * order its join runs), so concurrent batches take the same bots' locks in the same order.
 */
export async function takeUpdateIds(
  ctx: BatchContext,
  counts: ReadonlyMap<string, number>,
): Promise<Map<string, number>> {
  const byBot = [...counts];
  if (ctx.dialect === 'postgres' && byBot.length > 1) {
    await ctx.tx
      .selectFrom('bots')
      .select('bot_user_id')
      .where('bot_user_id', 'in', [...counts.keys()])
      .orderBy('bot_user_id')
      .forUpdate()
      .execute();
  }
  const rows = await run<{ bot_user_id: string; last_update_id: number }>(ctx, advance, [json(byBot)]);
  return new Map(rows.map((r) => [r.bot_user_id, r.last_update_id]));
}

const insertMany = statement(
  (rows) => `INSERT INTO updates (bot_user_id, update_id, payload, created_at, attempts, next_attempt_at, last_error)
    SELECT r.bot, r.id, r.payload, ?, 0, ?, NULL
    FROM ${rows({ bot: 'text', id: 'int', payload: 'text' })} AS r ORDER BY r.ord`,
);

/** insertUpdate for many Updates made at `ctx.now`, inserted in the order given. */
export async function insertUpdates(
  ctx: BatchContext,
  updates: readonly (readonly [botUserId: string, updateId: number, payload: string])[],
): Promise<void> {
  if (updates.length > 0) await run(ctx, insertMany, [ctx.now, ctx.now, json(updates)]);
}

export async function insertUpdate(
  tx: Kysely<DB>,
  u: { bot_user_id: string; update_id: number; payload: string; created_at: number },
): Promise<void> {
  await tx
    .insertInto('updates')
    .values({ ...u, attempts: 0, next_attempt_at: u.created_at, last_error: null })
    .execute();
}

export const pendingUpdates = (tx: Kysely<DB>, botUserId: string, fromId: number, notBefore: number, limit: number) =>
  tx
    .selectFrom('updates')
    .select(['update_id', 'payload'])
    .where('bot_user_id', '=', botUserId)
    .where('update_id', '>=', fromId)
    .where('created_at', '>=', notBefore)
    .orderBy('update_id')
    .limit(limit)
    .execute();

/** Which of `botUserIds` have an Update pending (created at `notBefore` or later). */
export async function botsWithPending(tx: Kysely<DB>, botUserIds: readonly string[], notBefore: number) {
  const found: string[] = [];
  // In slices: a statement takes a bounded number of parameters (SQLite 32,766, PostgreSQL 65,535).
  for (let i = 0; i < botUserIds.length; i += 1000) {
    const rows = await tx
      .selectFrom('updates')
      .select('bot_user_id')
      .distinct()
      .where('bot_user_id', 'in', botUserIds.slice(i, i + 1000))
      .where('created_at', '>=', notBefore)
      .execute();
    for (const r of rows) found.push(r.bot_user_id);
  }
  return found;
}

/** Confirms (deletes) the bot's updates with ids below `offset`. */
export async function confirmBelow(tx: Kysely<DB>, botUserId: string, offset: number): Promise<void> {
  await tx.deleteFrom('updates').where('bot_user_id', '=', botUserId).where('update_id', '<', offset).execute();
}

export async function deleteUpdates(tx: Kysely<DB>, botUserId: string, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.deleteFrom('updates').where('bot_user_id', '=', botUserId).where('update_id', 'in', ids).execute();
}

export async function setWebhook(
  tx: Kysely<DB>,
  botUserId: string,
  w: { url: string; keyEnc: string; format: PayloadFormat; maxConnections: number | null },
): Promise<void> {
  await tx
    .updateTable('bots')
    .set({
      webhook_url: w.url,
      webhook_key_enc: w.keyEnc,
      webhook_max_connections: w.maxConnections,
      payload_format: w.format,
      last_error_at: null,
      last_error_message: null,
    })
    .where('bot_user_id', '=', botUserId)
    .execute();
}

/**
 * Makes the bot's Updates that failed due now, counted from 0 again, and ends the bot's run of
 * failures: a new Webhook URL must not wait out the backoff or Retry-After of the old receiver. A
 * retry leased right now by another instance may then go out twice, which at-least-once delivery
 * allows.
 */
export async function restartRetries(tx: Kysely<DB>, botUserId: string, now: number): Promise<void> {
  await endStreak(tx, botUserId);
  await tx
    .updateTable('updates')
    .set({ attempts: 0, next_attempt_at: now })
    .where('bot_user_id', '=', botUserId)
    .where('attempts', '>', 0)
    .execute();
}

export async function clearWebhook(tx: Kysely<DB>, botUserId: string): Promise<void> {
  await tx
    .updateTable('bots')
    .set({ webhook_url: null, webhook_key_enc: null, webhook_max_connections: null })
    .where('bot_user_id', '=', botUserId)
    .execute();
}

export async function dropPending(tx: Kysely<DB>, botUserId: string): Promise<void> {
  await tx.deleteFrom('updates').where('bot_user_id', '=', botUserId).execute();
}

/**
 * The bot's Updates not yet expired, as two counts that each read an index only: all of the bot's
 * (its unique index, which covers the count), less those created before `notBefore` (through the
 * created_at index: the expired are few, as every dispatcher pass deletes them). Counted in one
 * statement with both conditions, SQLite read every row of the table: 48 ms at 100,000 pending for
 * one bot, on the one thread, for every getWebhookInfo; 2.5 to 5 ms this way.
 */
export async function pendingCount(tx: Kysely<DB>, botUserId: string, notBefore: number): Promise<number> {
  const updates = tx.selectFrom('updates').select((eb) => eb.fn.countAll<number>().as('n'));
  // All first: expired rows a sweep deletes in between are then counted at most, never taken twice.
  const all = await updates.where('bot_user_id', '=', botUserId).executeTakeFirstOrThrow();
  // The bot's id behind `|| ''`, which no index serves, so the planner takes the created_at range.
  const expired = await updates
    .where('created_at', '<', notBefore)
    .where(sql`bot_user_id || ''`, '=', botUserId)
    .executeTakeFirstOrThrow();
  return Math.max(0, all.n - expired.n);
}

/**
 * A time is due at `now`: it has come, or it is more than `farMs` away, further than any schedule
 * this platform makes (a lease, the longest backoff, the clocks' skew): stamped by a clock since
 * set back, or briefly far ahead, it would otherwise hold the bot's queue back by the step, for
 * years maybe.
 */
const dueBy = (at: Expression<number | null>, now: number, farMs: number) =>
  sql<SqlBool>`(${at} <= ${now} or ${at} > ${now + farMs})`;

/**
 * The conditions of a bot's head Update `u` (of bot `b`) being due at `now`, for dueHeads and any
 * look-up of one bot's head: the Update's own time (its backoff, or a lease) and the bot's
 * (`webhook_not_before`, the backoff of its run of failures, whichever Updates they were of), each
 * with the same guard against a clock moved (dueBy).
 */
export const headDue = (now: number, farMs: number): Expression<SqlBool> =>
  sql<SqlBool>`(${dueBy(sql.ref('u.next_attempt_at'), now, farMs)} and (${sql.ref('b.webhook_not_before')} is null or ${dueBy(sql.ref('b.webhook_not_before'), now, farMs)}))`;

/**
 * The due head Update of each bot with a webhook. Driven from the bots (a partial index) and each
 * bot's smallest update_id (the unique index), so its cost follows the bots with a webhook, not
 * the Updates waiting, however many a polling bot leaves unconsumed. Only bots with a webhook: the
 * type says so too (`$narrowType`), so a due head's webhook_url is never null.
 *
 * Due: the Update's time and the bot's (headDue).
 */
export function dueHeads(tx: Kysely<DB>, now: number, limit: number, farMs: number) {
  return tx
    .selectFrom('bots as b')
    .innerJoin('updates as u', (join) =>
      join.onRef('u.bot_user_id', '=', 'b.bot_user_id').on('u.update_id', '=', (eb) =>
        eb
          .selectFrom('updates as h')
          .select((h) => h.fn.min('h.update_id').as('m'))
          .whereRef('h.bot_user_id', '=', 'b.bot_user_id'),
      ),
    )
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
      'b.allowed_updates',
      'b.webhook_fail_streak',
    ])
    .where('b.webhook_url', 'is not', null)
    .$narrowType<{ webhook_url: NotNull }>()
    .where(headDue(now, farMs))
    .orderBy('u.next_attempt_at')
    .limit(limit)
    .execute();
}

export type DueHead = Awaited<ReturnType<typeof dueHeads>>[number];

/** No attempt of the Update is under way at `now`: it never had a lease, or its lease has ended or run out. */
const leaseEnded = (now: number) => (eb: ExpressionBuilder<DB, 'updates'>) =>
  eb.or([eb('leased_until', 'is', null), eb('leased_until', '<=', now)]);

/**
 * Leases a due Update (as dueHeads reads it, with the same `farMs`) until `until` (one atomic
 * UPDATE): false when another dispatcher took it first. `leased_until` tells a redelivery that an
 * attempt is under way (retryNow).
 */
export async function leaseUpdate(
  tx: Kysely<DB>,
  seq: number,
  now: number,
  until: number,
  farMs: number,
): Promise<boolean> {
  const r = await tx
    .updateTable('updates')
    .set({ next_attempt_at: until, leased_until: until })
    .where('seq', '=', seq)
    .where((eb) => eb.or([eb('next_attempt_at', '<=', now), eb('next_attempt_at', '>', now + farMs)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Deletes one queued Update (delivered, or of a kind the bot did not ask for). */
export async function deleteUpdate(tx: Kysely<DB>, seq: number): Promise<void> {
  await tx.deleteFrom('updates').where('seq', '=', seq).execute();
}

/** Logs one webhook delivery attempt. */
export async function insertDelivery(tx: Kysely<DB>, d: Insertable<WebhookDeliveriesTable>): Promise<void> {
  await tx.insertInto('webhook_deliveries').values(d).execute();
}

/**
 * Counts a failed attempt of a leased Update and makes it due again `at`, with its error; false when
 * a new Webhook URL set meanwhile left the Update as it was.
 */
export async function retryLater(
  tx: Kysely<DB>,
  h: { seq: number; bot_user_id: string; attempts: number },
  r: { url: string; at: number; error: string | null },
): Promise<boolean> {
  const u = await tx
    .updateTable('updates')
    .set({ attempts: sql`attempts + 1`, next_attempt_at: r.at, last_error: r.error })
    .where('seq', '=', h.seq)
    // A new Webhook URL set while this attempt was out to the old one leaves the Update as the
    // change left it (due now, or leased for its first attempt), not pushed back by the old
    // receiver: its attempts were reset (a retry), or its URL is another (a first attempt).
    .where('attempts', '=', h.attempts)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('bots')
          .select('bots.bot_user_id')
          .where('bots.bot_user_id', '=', h.bot_user_id)
          .where('bots.webhook_url', '=', r.url),
      ),
    )
    .executeTakeFirst();
  return Number(u.numUpdatedRows) > 0;
}

/**
 * Counts a failed attempt in the bot's run of failures and holds its next attempt until `at`, if
 * its Webhook URL is still `url` (a new one starts without them: restartRetries).
 */
export async function failStreak(tx: Kysely<DB>, botUserId: string, url: string, at: number): Promise<void> {
  await tx
    .updateTable('bots')
    .set({ webhook_fail_streak: sql`coalesce(webhook_fail_streak, 0) + 1`, webhook_not_before: at })
    .where('bot_user_id', '=', botUserId)
    .where('webhook_url', '=', url)
    .execute();
}

/** Lets the bot's next webhook attempt start at once (a redelivery), its run of failures kept. */
export async function releaseBot(tx: Kysely<DB>, botUserId: string): Promise<void> {
  await tx
    .updateTable('bots')
    .set({ webhook_not_before: null })
    .where('bot_user_id', '=', botUserId)
    .where('webhook_not_before', 'is not', null)
    .execute();
}

/**
 * Ends the bot's run of failures (a delivery got through). Writes only a bot that had one: most
 * deliveries leave its row, and its lock, alone.
 */
export async function endStreak(tx: Kysely<DB>, botUserId: string): Promise<void> {
  await tx
    .updateTable('bots')
    .set({ webhook_fail_streak: null, webhook_not_before: null })
    .where('bot_user_id', '=', botUserId)
    .where((eb) => eb.or([eb('webhook_fail_streak', 'is not', null), eb('webhook_not_before', 'is not', null)]))
    .execute();
}

/**
 * Ends the lease an attempt took until `until`, whatever became of its outcome (retryLater may
 * leave the row as a new Webhook URL left it): a redelivery must not wait for an attempt that has
 * ended. A later attempt's lease, if one was taken meanwhile, is another `until` and stays.
 */
export async function endLease(tx: Kysely<DB>, seq: number, until: number): Promise<void> {
  await tx
    .updateTable('updates')
    .set({ leased_until: null })
    .where('seq', '=', seq)
    .where('leased_until', '=', until)
    .execute();
}

/** Records the bot's last webhook error, if its Webhook URL is still `url`. */
export async function noteWebhookError(
  tx: Kysely<DB>,
  botUserId: string,
  url: string,
  now: number,
  error: string | null,
): Promise<void> {
  await tx
    .updateTable('bots')
    .set({ last_error_at: now, last_error_message: error })
    .where('bot_user_id', '=', botUserId)
    .where('webhook_url', '=', url)
    .execute();
}

/**
 * Drops updates older than `before` (kept 24 hours), in batches (after downtime the backlog is a
 * day of fan-out); returns how many. One whose attempt is still out (a live lease) waits for its
 * outcome: gone meanwhile, a redelivery would queue it again from the failed attempt's copy and
 * send it a second time in parallel.
 */
export const expireUpdates = (q: Kysely<DB>, before: number, now: number): Promise<number> =>
  deleteOlder(q, 'updates', ['seq'], 'created_at', before, {
    where: leaseEnded(now)(expressionBuilder<DB, 'updates'>()),
  });

/** The delivery log the developer site shows (and redelivers from) covers a week. */
const KEEP_DELIVERIES_MS = 7 * 24 * 3600 * 1000;

/** Deletes the delivery log's attempts older than a week (the retention sweep). */
export async function expireDeliveries(q: Kysely<DB>, now: number): Promise<void> {
  await deleteOlder(q, 'webhook_deliveries', ['seq'], 'created_at', now - KEEP_DELIVERIES_MS);
}

/**
 * Deletes the button presses older than UPDATE_RETENTION_S (the retention sweep): the window an
 * undelivered Update has, so a callback_query Update still queued finds its press to answer.
 * After it answerCallbackQuery answers as for an unknown id ("query is too old").
 */
export async function expireCallbackQueries(
  q: Kysely<DB>,
  now: number,
  config: Pick<Config, 'updateRetentionS'>,
): Promise<void> {
  await deleteOlder(q, 'callback_queries', ['seq'], 'created_at', now - config.updateRetentionS * 1000);
}

export async function insertCallbackQuery(
  tx: Kysely<DB>,
  q: Omit<Insertable<CallbackQueriesTable>, 'seq' | 'answered_at' | 'answer_text' | 'show_alert'>,
): Promise<void> {
  await tx.insertInto('callback_queries').values(q).execute();
}

export const findCallbackQuery = (tx: Kysely<DB>, callbackId: string) =>
  tx.selectFrom('callback_queries').selectAll().where('callback_id', '=', callbackId).executeTakeFirst();

export async function answerCallbackQuery(
  tx: Kysely<DB>,
  callbackId: string,
  answer: { text: string | null; showAlert: boolean },
  now: number,
): Promise<boolean> {
  const r = await tx
    .updateTable('callback_queries')
    .set({ answered_at: now, answer_text: answer.text, show_alert: answer.showAlert ? 1 : 0 })
    .where('callback_id', '=', callbackId)
    .where('answered_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** A webhook delivery attempt of the bot, by its number in the delivery log. */
export const findDelivery = (tx: Kysely<DB>, botUserId: string, seq: number) =>
  tx
    .selectFrom('webhook_deliveries')
    .select(['seq', 'update_id', 'error', 'payload'])
    .where('bot_user_id', '=', botUserId)
    .where('seq', '=', seq)
    .executeTakeFirst();

/** Whether a later attempt of the same Update got through. */
export const laterSuccess = async (tx: Kysely<DB>, botUserId: string, updateId: number, seq: number) =>
  (await tx
    .selectFrom('webhook_deliveries')
    .select('seq')
    .where('bot_user_id', '=', botUserId)
    .where('update_id', '=', updateId)
    .where('seq', '>', seq)
    .where('error', 'is', null)
    .executeTakeFirst()) !== undefined;

/**
 * Makes a queued Update due now (`due`), unless an attempt of it is under way (`leased`: its lease
 * has not run out), or it is no longer queued (`gone`). Made due during an attempt, it was sent
 * again by another dispatcher while the first attempt was still out, and the first attempt's
 * outcome then overwrote the redelivery. The UPDATE is atomic with leaseUpdate's: whichever
 * commits first, the other sees it.
 */
export async function retryNow(
  tx: Kysely<DB>,
  botUserId: string,
  updateId: number,
  now: number,
): Promise<'due' | 'leased' | 'gone'> {
  const r = await tx
    .updateTable('updates')
    .set({ next_attempt_at: now })
    .where('bot_user_id', '=', botUserId)
    .where('update_id', '=', updateId)
    .where(leaseEnded(now))
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) > 0) return 'due';
  const queued = await tx
    .selectFrom('updates')
    .select('seq')
    .where('bot_user_id', '=', botUserId)
    .where('update_id', '=', updateId)
    .executeTakeFirst();
  return queued === undefined ? 'gone' : 'leased';
}
