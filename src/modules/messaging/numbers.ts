// Telegram-compatible message ids for the bot's own messages (telegram-api.md "Numeric ids"),
// drawn from the counter that also numbers users' messages (migration 0005), so that a number is
// unique within every chat. Drawn before the insert: the send answers with the number it wrote.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../db/connect.js';
import type { DB } from '../../db/types.js';
import { drawTelegramNumbers } from '../users/index.js';

const NUMBER = /^-?\d{1,16}$/;

/**
 * A Telegram number given as a number or as decimal text; undefined for the platform's string ids;
 * null for a number no id can be (fractional, infinite or beyond 2^53: the counters draw safe
 * integers, and the stores' bigints could not even hold some of them).
 */
export function numberOf(id: number | string): number | null | undefined {
  if (typeof id === 'string' && !NUMBER.test(id)) return undefined;
  const n = Number(id);
  return Number.isSafeInteger(n) ? n : null;
}

/** `count` fresh message numbers, ascending. */
export async function nextMessageNumbers(tx: Kysely<DB>, dialect: Dialect, count: number): Promise<number[]> {
  if (count === 0) return [];
  if (dialect === 'postgres') {
    const r = await sql<{ id: number }>`select nextval('telegram_message_ids') as id
      from generate_series(1, ${count}) order by 1`.execute(tx);
    return r.rows.map((row) => row.id);
  }
  const last = await drawTelegramNumbers(tx, 'message', count);
  return Array.from({ length: count }, (_, i) => last - count + 1 + i);
}
