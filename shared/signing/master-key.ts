import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SecretBox } from './secret-box';

export const MASTER_KEY_FILE = 'master.key';

/**
 * The key that encrypts stored secret keys: MASTER_KEY when configured, else a key file in the data folder
 * created on first start with mode 0600 (embedded mode only; production passes MASTER_KEY).
 */
export function loadMasterKey(config: { masterKey: string; dataDir: string }): Buffer {
  if (config.masterKey) return Buffer.from(config.masterKey, 'hex');
  mkdirSync(config.dataDir, { recursive: true });
  const file = path.join(config.dataDir, MASTER_KEY_FILE);
  try {
    const hex = readFileSync(file, 'utf8').trim();
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error(`${file} does not hold 64 hex characters`);
    return Buffer.from(hex, 'hex');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const key = randomBytes(32);
  // 'wx' fails if another process created the file meanwhile; then read theirs.
  try {
    writeFileSync(file, key.toString('hex'), { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  }
}

/**
 * The box that seals and opens stored secrets: under the master key, also opening what MASTER_KEY_PREVIOUS sealed
 * while a rotation is under way.
 */
export function secretBoxOf(config: {
  masterKey: string;
  masterKeyPrevious: string;
  dataDir: string;
}): SecretBox {
  const previous = config.masterKeyPrevious ? Buffer.from(config.masterKeyPrevious, 'hex') : undefined;
  return new SecretBox(loadMasterKey(config), previous);
}
