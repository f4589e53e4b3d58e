import { randomBytes, randomInt } from 'node:crypto';

const token = (bytes: number): string => randomBytes(bytes).toString('base64url');
const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

export const newAppId = (): string => `app_${hex(8)}`;
/** App Key: sent as X-API-KEY. Only its hash is used for look-ups. */
export const newApiKey = (): string => `ak_${token(24)}`;
/** App Secret: hex, so it is easy to paste into signature code. */
export const newAppSecret = (): string => hex(20);
export const newWebhookKey = (): string => `wk_${token(24)}`;
export const newAdminToken = (): string => `adm_${token(32)}`;
export const newSecretToken = (): string => token(32);
export const newEvmAddress = (): string => `0x${hex(20)}`;
// Record ids sort by creation time, so a new id lands at the end of its unique index instead of on
// a random page (which made each outbox insert several times slower); a tag drawn at start-up
// keeps ids of several processes apart.
const PROCESS_TAG = randomBytes(4).toString('hex');
const SEQUENCE_SPAN = 36 ** 4;
let sequence = 0;

/** Record ids (messages, ledger transactions, applications): time, then a sequence, then the process tag. */
export const newId = (prefix: string): string =>
  `${prefix}_${Date.now().toString(36)}${(sequence++ % SEQUENCE_SPAN).toString(36).padStart(4, '0')}${PROCESS_TAG}`;
/** Bot user ids are numeric text like the application's own user ids. */
export const newBotUserId = (): string => `${Date.now()}${String(randomInt(0, 1_000_000)).padStart(6, '0')}`;
