import type { NonceUse } from '../../shared/store/repositories/nonces-repository';
import type { NonceLedger } from './nonce-ledger';
import type { RedisBatch } from './redis-batch';

/**
 * Nonces in Redis, shared by every api process: one key per (API key, nonce), created only if absent and expiring
 * with the nonce's window. An error (Redis down or slow) propagates: the gateway then refuses the request as
 * "verification temporarily unavailable", since accepting it could accept a replay.
 */
export class RedisNonceLedger implements NonceLedger {
  constructor(
    private readonly batch: RedisBatch,
    private readonly now: () => number = Date.now,
  ) {}

  async use(use: NonceUse): Promise<boolean> {
    const ttlMs = Math.max(1, Math.ceil(use.expiresAt - this.now()));
    const key = `nonce:${use.apiKey}:${use.nonce}`;
    const set = await this.batch.run((p) => p.set(key, '1', 'PX', ttlMs, 'NX'));
    return set === 'OK';
  }
}
