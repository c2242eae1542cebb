import { randomUUID } from 'node:crypto';
import os from 'node:os';

/** A lease owner name unique to this process run: a restarted process never mistakes an old lease for its own. */
export function processLeaseOwner(role: string): string {
  return `${role}:${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}
