// An Update as stored: what the bot receives, and the older flat fields for webhook receivers.
import type { FlatFields } from './fanout.js';

export interface UpdateObject extends Record<string, unknown> {
  id: number;
  update_id: number;
}

export interface StoredUpdate {
  update: UpdateObject;
  flat: FlatFields;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const FLAT_KEYS = ['from_user_id', 'to_user_id', 'language', 'group_id', 'mention_users', 'message', 'message_raw'];

const isFlat = (v: unknown): v is FlatFields => isRecord(v) && FLAT_KEYS.every((k) => typeof v[k] === 'string');
const isUpdate = (v: unknown): v is UpdateObject =>
  isRecord(v) && typeof v.id === 'number' && typeof v.update_id === 'number';

export function parseStored(payload: string): StoredUpdate {
  const v: unknown = JSON.parse(payload);
  if (!isRecord(v) || !isUpdate(v.update) || !isFlat(v.flat)) throw new Error('unreadable stored update');
  return { update: v.update, flat: v.flat };
}

/** The webhook body in the bot's chosen format (decisions.md section 2). */
export function webhookBody(stored: StoredUpdate, format: 'update' | 'flat'): string {
  const { message, ...rest } = stored.flat;
  // A button press has no flat form: older receivers get it as an Update too.
  if (format === 'flat' && 'message' in stored.update) return JSON.stringify({ ...rest, message });
  return JSON.stringify({ ...stored.update, ...rest, message_raw: stored.flat.message_raw });
}
