// The signed generation (decisions.md section 1): signature = hex SHA1(App Secret + nonce +
// timestamp), timestamps in ms or s within 300 s, and each (key, nonce, timestamp) used once.
import { timingSafeEqual } from 'node:crypto';
import { AppError, Errors } from '../../errors.js';
import { safeEqual, sha1Hex } from '../../lib/crypto.js';
import type { NonceStore } from '../../lib/shared-state.js';
import type { Credential } from './credentials.js';

export const WINDOW_MS = 300_000;
const NONCE = /^[0-9A-Za-z]{1,32}$/;
const TIMESTAMP = /^(\d{10}|\d{13})$/;
// Checked before decoding: Node's hex decoder reads only the low byte of each UTF-16 unit.
const HEX40 = /^[0-9a-fA-F]{40}$/;

export interface SignedHeaders {
  appId: string | undefined;
  nonce: string | undefined;
  timestamp: string | undefined;
  signature: string;
}

const refuseReplay = (fresh: boolean): void => {
  if (!fresh) throw new AppError(Errors.nonceUsed);
};

/** A signature that holds: what claiming its nonce records, and until when. */
export interface Signed {
  /** The expected signature stands for (secret, nonce, timestamp): a replay repeats it exactly. */
  key: Buffer;
  expiresAt: number;
}

/** Throws the answer for a bad signature; otherwise answers what claiming its nonce takes. */
export function verifySignature(h: SignedHeaders, credential: Credential, now: number): Signed {
  if (h.nonce === undefined || !NONCE.test(h.nonce)) {
    throw new AppError(Errors.paramError, 'header.nonce: 1 to 32 letters or digits, required with signature');
  }
  if (h.timestamp === undefined || !TIMESTAMP.test(h.timestamp)) {
    throw new AppError(
      Errors.paramError,
      'header.timestamp: unix time in seconds (10 digits) or milliseconds (13 digits)',
    );
  }
  const ms = h.timestamp.length === 10 ? Number(h.timestamp) * 1000 : Number(h.timestamp);
  if (Math.abs(now - ms) > WINDOW_MS) throw new AppError(Errors.timestampOutOfRange);
  // Compared as the 20 bytes both hex spellings (any case) stand for, nothing lowered or re-encoded.
  // (The one-shot hash to hex, then decoded, is cheaper in Node 20 than its 'buffer' output.)
  const expected = Buffer.from(sha1Hex(credential.secret + h.nonce + h.timestamp), 'hex');
  const matches = HEX40.test(h.signature) && timingSafeEqual(Buffer.from(h.signature, 'hex'), expected);
  if (!matches || (h.appId !== undefined && !safeEqual(h.appId, credential.appId))) {
    throw new AppError(Errors.signatureMismatch);
  }
  return { key: expected, expiresAt: ms + WINDOW_MS };
}

/**
 * Claims a verified signature's nonce, or throws the answer for a replay. Only after the signature
 * holds, so nobody can burn another client's nonces. Synchronous (undefined) when the nonce store
 * answers at once, as the in-memory one does; a promise when it has to ask Redis.
 */
export function claimNonce(nonces: NonceStore, signed: Signed, now: number): Promise<void> | undefined {
  const fresh = nonces.claim(signed.key, signed.expiresAt, now);
  if (typeof fresh === 'boolean') {
    refuseReplay(fresh);
    return undefined;
  }
  return fresh.then(refuseReplay);
}
