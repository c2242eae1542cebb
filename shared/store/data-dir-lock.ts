import { mkdirSync } from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';

/** The lock of the embedded service, inside its data folder (a directory, as proper-lockfile makes it). */
export const DATA_DIR_LOCK = 'service.lock';
/**
 * A lock not refreshed for this long belongs to a process that died (SIGKILL, power loss): the next start takes
 * it over. Refreshed every STALE/4; the devnet's in-process chains can hold the event loop for seconds.
 */
const STALE_MS = 10_000;

export class DataDirInUseError extends Error {
  constructor(dataDir: string) {
    super(
      `DATA_DIR ${dataDir} is in use by another running service: stop it first, or give this one another DATA_DIR ` +
        `(a lock left by a killed service frees itself within ${STALE_MS / 1000} s)`,
    );
    this.name = 'DataDirInUseError';
  }
}

function options(dataDir: string) {
  return { lockfilePath: path.join(dataDir, DATA_DIR_LOCK), stale: STALE_MS, realpath: false };
}

/**
 * Makes the data folder this process's own (the devnet's chain state and the SQLite store in it take one writer),
 * until the returned function releases it. `onLost` hears if the lock could not be kept fresh.
 */
export async function lockDataDir(
  dataDir: string,
  onLost: (err: Error) => void,
): Promise<() => Promise<void>> {
  mkdirSync(dataDir, { recursive: true });
  try {
    return await lockfile.lock(dataDir, {
      ...options(dataDir),
      update: STALE_MS / 4,
      onCompromised: onLost,
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') throw new DataDirInUseError(dataDir);
    throw err;
  }
}

/** Whether a running service holds the data folder. */
export async function dataDirInUse(dataDir: string): Promise<boolean> {
  try {
    return await lockfile.check(dataDir, options(dataDir));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}
