import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { SqliteDirect, SqliteSession } from '../sqlite-direct';

export interface NonceUse {
  apiKey: string;
  nonce: string;
  /** Until when (Unix ms) the nonce stays used. */
  expiresAt: number;
}

interface NonceRow {
  api_key: string;
  nonce: string;
  expires_at: number | string;
  claim: string;
}

/** Rows per statement: well under SQLite's and MySQL's bound-parameter limits. */
const CHUNK = 200;

/** Request nonces per API key, kept in the shared store so every api process sees a replay. */
export class NoncesRepository {
  constructor(
    private readonly knex: Knex,
    /**
     * SQLite: the whole batch in one transaction of statements prepared once, on knex's own connection (knex would
     * build and prepare two or three statements per batch anew).
     */
    private readonly sqlite?: SqliteDirect,
  ) {}

  /** Records one nonce as used until `now + ttlMs`; false when the key already used it within its window. */
  async use(apiKey: string, nonce: string, now: number, ttlMs: number): Promise<boolean> {
    const [accepted] = await this.useMany([{ apiKey, nonce, expiresAt: now + ttlMs }], now);
    return accepted;
  }

  /**
   * Records many nonces in two statements (insert-or-ignore, then read back whose claim token won), so a burst of
   * requests costs one round trip instead of one each. A nonce whose record expired but was not purged yet counts
   * as unused. Two entries of one batch with the same key and nonce: only the first is accepted.
   */
  async useMany(uses: NonceUse[], now: number): Promise<boolean[]> {
    // One random token per batch, suffixed per entry: unique per row, and one CSPRNG call per batch.
    const batch = randomBytes(12).toString('hex');
    const claims = uses.map((_, i) => `${batch}${i.toString(36)}`);
    if (this.sqlite) return this.sqlite.run((session) => useManyOn(session, uses, claims, now));
    const accepted: boolean[] = new Array<boolean>(uses.length).fill(false);
    for (let start = 0; start < uses.length; start += CHUNK) {
      const slice = uses.slice(start, start + CHUNK);
      const rows = await this.insertOrIgnore(slice, claims.slice(start, start + CHUNK));
      const stored = new Map(rows.map((r) => [`${r.api_key}/${r.nonce}`, r]));
      for (let i = 0; i < slice.length; i++) {
        const row = stored.get(`${slice[i].apiKey}/${slice[i].nonce}`);
        if (row?.claim === claims[start + i]) accepted[start + i] = true;
        else if (row && Number(row.expires_at) <= now) {
          accepted[start + i] = await this.revive(slice[i], claims[start + i], now);
        }
      }
    }
    return accepted;
  }

  /** Inserts what is new and returns the stored rows of the slice that are ours or that stood in the way. */
  private async insertOrIgnore(slice: NonceUse[], claims: string[]): Promise<NonceRow[]> {
    const insert = this.knex<NonceRow>('request_nonces')
      .insert(
        slice.map((u, i) => ({
          api_key: u.apiKey,
          nonce: u.nonce,
          expires_at: u.expiresAt,
          claim: claims[i],
        })),
      )
      .onConflict(['api_key', 'nonce'])
      .ignore();
    await insert;
    return this.knex<NonceRow>('request_nonces')
      .select('api_key', 'nonce', 'expires_at', 'claim')
      .whereIn(
        ['api_key', 'nonce'],
        slice.map((u) => [u.apiKey, u.nonce]),
      );
  }

  async purgeExpired(now: number): Promise<number> {
    return this.knex('request_nonces').where('expires_at', '<=', now).delete();
  }

  /** Takes over an expired, not yet purged record; only one of several racing requests wins. */
  private async revive(use: NonceUse, claim: string, now: number): Promise<boolean> {
    const changed = await this.knex('request_nonces')
      .where({ api_key: use.apiKey, nonce: use.nonce })
      .andWhere('expires_at', '<=', now)
      .update({ expires_at: use.expiresAt, claim });
    return changed > 0;
  }
}

const INSERT_NONCE =
  'insert into request_nonces (api_key, nonce, expires_at, claim) values (?, ?, ?, ?) ' +
  'on conflict (api_key, nonce) do nothing';
const REVIVE_NONCE =
  'update request_nonces set expires_at = ?, claim = ? where api_key = ? and nonce = ? and expires_at <= ?';

/**
 * useMany on SQLite, in one transaction: each nonce is inserted if new; one already stored is taken over only when
 * its record expired (not purged yet). A repeat within the batch meets the first's fresh record and is refused.
 */
function useManyOn(session: SqliteSession, uses: NonceUse[], claims: string[], now: number): boolean[] {
  const insert = session.statement(INSERT_NONCE);
  const revive = session.statement(REVIVE_NONCE);
  return session.db.transaction(() =>
    uses.map((u, i) => {
      if (insert.run(u.apiKey, u.nonce, u.expiresAt, claims[i]).changes > 0) return true;
      return revive.run(u.expiresAt, claims[i], u.apiKey, u.nonce, now).changes > 0;
    }),
  )();
}
