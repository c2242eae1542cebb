import type { Knex } from 'knex';
import { isDuplicateKeyError } from '../create-knex';

/** Request nonces per API key, kept in the shared store so every api process sees a replay. */
export class NoncesRepository {
  constructor(private readonly knex: Knex) {}

  /**
   * Records the nonce as used until `now + ttlMs`. Returns false when the key already used it within its window.
   * A nonce whose record expired but was not purged yet counts as unused.
   */
  async use(apiKey: string, nonce: string, now: number, ttlMs: number): Promise<boolean> {
    try {
      await this.knex('request_nonces').insert({ api_key: apiKey, nonce, expires_at: now + ttlMs });
      return true;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
    const revived = await this.knex('request_nonces')
      .where({ api_key: apiKey, nonce })
      .andWhere('expires_at', '<=', now)
      .update({ expires_at: now + ttlMs });
    return revived > 0;
  }

  async purgeExpired(now: number): Promise<number> {
    return this.knex('request_nonces').where('expires_at', '<=', now).delete();
  }
}
