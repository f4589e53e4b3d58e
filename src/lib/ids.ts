import { randomBytes, randomInt, randomUUID } from 'node:crypto';

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
/** Record ids (messages, ledger transactions, applications). randomUUID draws from a buffered pool: cheap per call. */
export const newId = (prefix: string): string => `${prefix}_${randomUUID().replaceAll('-', '')}`;
/** Bot user ids are numeric text like the application's own user ids. */
export const newBotUserId = (): string => `${Date.now()}${String(randomInt(0, 1_000_000)).padStart(6, '0')}`;
