import { sql, type Insertable, type Kysely, type NotNull, type Selectable } from 'kysely';
import { deleteOlder } from '../../db/rows.js';
import type { DB, OutboxMessagesTable } from '../../db/types.js';
import { IDEMPOTENCY_WINDOW_MS } from './idempotency-key.js';
import { numberOf } from './numbers.js';

export type OutboxRow = Selectable<OutboxMessagesTable>;
/** A message's row without the cursors the store draws (the feed's seq, the edit feed's edit_seq). */
export type OutboxMessageRow = Omit<OutboxRow, 'seq' | 'edit_seq'>;
export type NewOutboxRow = Omit<Insertable<OutboxMessagesTable>, 'seq' | 'edit_seq'>;

export async function insertOutbox(tx: Kysely<DB>, rows: readonly NewOutboxRow[]): Promise<void> {
  // Batches keep each statement under the parameter limits of both stores.
  for (let i = 0; i < rows.length; i += 500)
    await tx
      .insertInto('outbox_messages')
      .values(rows.slice(i, i + 500))
      .execute();
}

/**
 * `forUpdate`: the row stays locked until the transaction ends (PostgreSQL only: SQLite knows no
 * FOR UPDATE, and its one writer runs one write at a time).
 */
interface Locking {
  forUpdate?: boolean;
}

export const findOutbox = (
  tx: Kysely<DB>,
  messageId: string,
  { forUpdate = false }: Locking = {},
): Promise<OutboxRow | undefined> =>
  tx
    .selectFrom('outbox_messages')
    .selectAll()
    .where('message_id', '=', messageId)
    .$if(forUpdate, (q) => q.forUpdate())
    .executeTakeFirst();

/** A bot's message by its platform id or its Telegram number (one counter numbers every chat's messages). */
export function findOutboxRef(
  tx: Kysely<DB>,
  ref: string | number,
  locking: Locking = {},
): Promise<OutboxRow | undefined> {
  const n = numberOf(ref);
  if (n === undefined) return findOutbox(tx, String(ref), locking);
  if (n === null) return Promise.resolve(undefined);
  return tx
    .selectFrom('outbox_messages')
    .selectAll()
    .where('telegram_message_id', '=', n)
    .$if(locking.forUpdate === true, (q) => q.forUpdate())
    .executeTakeFirst();
}

/** The columns of a message the operator's feeds show (not its rich-text layout), and both cursors. */
const FEED_COLUMNS = [
  'seq',
  'edit_seq',
  'message_id',
  'chat_type',
  'group_id',
  'to_user_id',
  'from_user_id',
  'object_name',
  'title',
  'content',
  'mention_user_ids',
  'reply_markup',
  'created_at',
  'edited_at',
] as const;
export type OutboxFeedRow = Pick<OutboxRow, (typeof FEED_COLUMNS)[number]>;

/**
 * A feed's page: up to `limit` rows after the cursor, in its order, taken while the rows before
 * them hold fewer than `budget` bytes of content, title, mentions and keyboard: always at least
 * one, and only the last can take the page past the budget. The sizes are read first, by
 * octet_length (PostgreSQL answers it from the stored value's header), so the rows left out of the
 * page are never read whole.
 */
const feedAfter = (q: Kysely<DB>, cursor: 'seq' | 'edit_seq', after: number, limit: number, budget: number) =>
  q
    .with('candidate', (db) =>
      db
        .selectFrom('outbox_messages')
        .select([
          `${cursor} as at`,
          sql<number>`octet_length(content) + octet_length(mention_user_ids)
            + coalesce(octet_length(title), 0) + coalesce(octet_length(reply_markup), 0)`.as('size'),
        ])
        .where(cursor, '>', after)
        .orderBy(cursor)
        .limit(limit),
    )
    .with('within', (db) =>
      db.selectFrom('candidate').select(['at', sql<number>`sum(size) over (order by at) - size`.as('before')]),
    )
    .selectFrom('outbox_messages')
    .innerJoin('within', 'within.at', `outbox_messages.${cursor}`)
    .select(FEED_COLUMNS)
    .where('within.before', '<', budget)
    .orderBy(`outbox_messages.${cursor}`);

/** The operator's feed: messages after a cursor, in send order (the seq, drawn in commit order: 0004). */
export const outboxAfter = (q: Kysely<DB>, after: number, limit: number, budget: number): Promise<OutboxFeedRow[]> =>
  feedAfter(q, 'seq', after, limit, budget).execute();

/** The operator's edit feed: messages whose last edit is after a cursor, in edit order (edit_seq, drawn as seq is: 0009). */
export const outboxEditedAfter = (q: Kysely<DB>, after: number, limit: number, budget: number) =>
  feedAfter(q, 'edit_seq', after, limit, budget).$narrowType<{ edit_seq: NotNull }>().execute();

export async function editOutbox(
  tx: Kysely<DB>,
  messageId: string,
  change: Pick<OutboxRow, 'content' | 'normalized' | 'reply_markup' | 'object_name' | 'edited_at'>,
): Promise<void> {
  await tx.updateTable('outbox_messages').set(change).where('message_id', '=', messageId).execute();
}

/** At most `limit` of a user's followers in following order, after the follow `afterSeq` (follows_followed serves it). */
export const followersAfter = (tx: Kysely<DB>, userId: string, afterSeq: number, limit: number) =>
  tx
    .selectFrom('follows')
    .select(['follower_id', 'seq'])
    .where('followed_id', '=', userId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();

export const chatUsers = (tx: Kysely<DB>, ids: readonly string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : tx
        .selectFrom('users')
        .select(['user_id', 'name', 'wallet_address', 'avatar', 'is_bot', 'level'])
        .where('user_id', 'in', [...new Set(ids)])
        .execute();

export const groupTitle = async (tx: Kysely<DB>, groupId: string) =>
  (await tx.selectFrom('groups').select('name').where('group_id', '=', groupId).executeTakeFirst())?.name;

/** What an Idempotency-Key's first request answered (a send's message id, a broadcast's count), if within `since`. */
export const idempotentAnswer = async (tx: Kysely<DB>, scope: string, key: string, since: number) =>
  (
    await tx
      .selectFrom('idempotency_keys')
      .select('body')
      .where('scope', '=', scope)
      .where('key', '=', key)
      .where('created_at', '>=', since)
      .executeTakeFirst()
  )?.body;

/** Replaces what a key's request answers, once the answer is whole (within the transaction that claimed it). */
export async function keepIdempotentAnswer(tx: Kysely<DB>, scope: string, key: string, answer: string) {
  await tx
    .updateTable('idempotency_keys')
    .set({ body: answer })
    .where('scope', '=', scope)
    .where('key', '=', key)
    .execute();
}

/**
 * Records what an Idempotency-Key's request answers (a send's message id, a broadcast's count). Only an expired record (before `expiredBefore`)
 * is replaced: a live one committed by a concurrent request must make this insert conflict (and the
 * caller retry into a replay), never be deleted, or both requests would send.
 */
export async function rememberIdempotent(
  tx: Kysely<DB>,
  scope: string,
  key: string,
  answer: string,
  now: number,
  expiredBefore: number,
) {
  await tx
    .deleteFrom('idempotency_keys')
    .where('scope', '=', scope)
    .where('key', '=', key)
    .where('created_at', '<', expiredBefore)
    .execute();
  await tx
    .insertInto('idempotency_keys')
    .values({ scope, key, status_code: 200, body: answer, created_at: now })
    .execute();
}

/** Deletes the keys whose window has passed (the retention sweep): none of them replays any more. */
export async function expireIdempotencyKeys(q: Kysely<DB>, now: number): Promise<void> {
  await deleteOlder(q, 'idempotency_keys', ['scope', 'key'], 'created_at', now - IDEMPOTENCY_WINDOW_MS);
}

/** Members of a group in joining order (for "mention everyone"), at most `limit`. */
export const memberIds = async (tx: Kysely<DB>, groupId: string, limit: number): Promise<string[]> =>
  (
    await tx
      .selectFrom('group_members')
      .select('user_id')
      .where('group_id', '=', groupId)
      .orderBy('seq')
      .limit(limit)
      .execute()
  ).map((r) => r.user_id);
