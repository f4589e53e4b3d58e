// Where the key for secrets at rest comes from: ENCRYPTION_KEY, else a key file created once
// beside the data (0600). Several instances sharing one database must share ENCRYPTION_KEY.
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Config } from '../config.js';
import { errorCode } from './error-code.js';

/** A key that cannot be used; the message names the setting to fix. */
export class KeySettingError extends Error {}

export interface EncryptionKey {
  key: Buffer;
  /** The setting the key came from, which an operator fixes; `path` is the key file's, made absolute. */
  setting: 'ENCRYPTION_KEY' | 'KEY_FILE';
  path: string;
  /** A key file that did not exist: generated here, written only by `saveKeyFile` (once the store accepts it). */
  unsaved: boolean;
}

/** The configured key, or a new one when the key file does not exist yet; a malformed one is refused. */
export function readEncryptionKey(config: Pick<Config, 'encryptionKey' | 'keyFile'>): EncryptionKey {
  if (config.encryptionKey !== undefined) {
    return { key: Buffer.from(config.encryptionKey, 'base64'), setting: 'ENCRYPTION_KEY', path: '', unsaved: false };
  }
  // Absolute, because the default (./data/encryption.key) depends on the working directory.
  const path = resolve(config.keyFile);
  const setting = 'KEY_FILE';
  if (!existsSync(path)) return { key: randomBytes(32), setting, path, unsaved: true };
  const text = readFileSync(path, 'utf8').trim();
  const key = Buffer.from(text, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || key.length !== 32) {
    throw new KeySettingError(
      `KEY_FILE: ${path} does not hold a 32-byte base64 key; restore the key this store was created with, or set ENCRYPTION_KEY`,
    );
  }
  return { key, setting, path, unsaved: false };
}

/**
 * Writes a generated key file, whole or not at all: to a temporary file linked into place, so a
 * crash or a full disk never leaves an empty or short one, and a key file another process starting
 * beside this one wrote meanwhile is never replaced. Answers false when that one was there first.
 */
export function saveKeyFile(path: string, key: Buffer): boolean {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${key.toString('base64')}\n`, { mode: 0o600, flush: true });
  try {
    linkSync(temporary, path);
    return true;
  } catch (e) {
    if (errorCode(e) === 'EEXIST') return false;
    throw e;
  } finally {
    rmSync(temporary, { force: true });
  }
}
