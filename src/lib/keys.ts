// Where the key for secrets at rest comes from: ENCRYPTION_KEY, else a key file created once
// beside the data (0600). Several instances sharing one database must share ENCRYPTION_KEY.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Config } from '../config.js';

export function loadEncryptionKey(config: Pick<Config, 'encryptionKey' | 'keyFile'>): Buffer {
  if (config.encryptionKey !== undefined) return Buffer.from(config.encryptionKey, 'base64');
  if (existsSync(config.keyFile)) {
    const key = Buffer.from(readFileSync(config.keyFile, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${config.keyFile} does not hold a 32-byte base64 key`);
    return key;
  }
  const key = randomBytes(32);
  mkdirSync(dirname(config.keyFile), { recursive: true });
  writeFileSync(config.keyFile, `${key.toString('base64')}\n`, { mode: 0o600 });
  return key;
}
