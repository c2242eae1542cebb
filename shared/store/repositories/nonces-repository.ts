import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { SqliteDirect, SqliteSession } from '../sqlite-direct';
import { SqliteNonceLog } from '../sqlite-nonce-log';

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
  /** SQLite: the nonces' append-only log and what this process knows of it (MySQL: `request_nonces`). */
  private readonly log?: SqliteNonceLog;

  constructor(
    private readonly knex: Knex,
    /** SQLite: the log's batches in one transaction of statements prepared once, on knex's own connection. */
    private readonly sqlite?: SqliteDirect,
  ) {
    if (sqlite) this.log = new SqliteNonceLog();
  }

  /** Records one nonce as used until `now + ttlMs`; false when the key already used it within its window. */
  async use(apiKey: string, nonce: string, now: number, ttlMs: number): Promise<boolean> {
    const [accepted] = await this.useMany([{ apiKey, nonce, expiresAt: now + ttlMs }], now);
    return accepted;
  }

  /**
   * Records many nonces at once, so a burst of requests costs one round trip instead of one each: on MySQL in two
   * statements (insert-or-ignore, then read back whose claim token won), on SQLite in one transaction of the log.
   * A nonce whose record expired but was not purged yet counts as unused. Two entries of one batch with the same
   * key and nonce: only the first is accepted.
   */
  async useMany(uses: NonceUse[], now: number): Promise<boolean[]> {
    const logged = this.onLog((log, session) => log.use(session, uses, now));
    if (logged) return logged;
    // One random token per batch, suffixed per entry: unique per row, and one CSPRNG call per batch.
    const batch = randomBytes(12).toString('hex');
    const claims = uses.map((_, i) => `${batch}${i.toString(36)}`);
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
    const logged = this.onLog((log, session) => log.purgeExpired(session, now));
    if (logged) return logged;
    return this.knex('request_nonces').where('expires_at', '<=', now).delete();
  }

  /** How many records hold this nonce, under any key (expired ones not purged yet included). */
  async records(nonce: string): Promise<number> {
    const logged = this.onLog((log, session) => log.records(session, nonce));
    if (logged) return logged;
    const [row] = (await this.knex('request_nonces').where({ nonce }).count({ n: '*' })) as Array<{
      n: number | string;
    }>;
    return Number(row?.n ?? 0);
  }

  /** SQLite: `work` on the log, on the store's connection; undefined on MySQL. */
  private onLog<T>(work: (log: SqliteNonceLog, session: SqliteSession) => T): Promise<T> | undefined {
    const { sqlite, log } = this;
    return sqlite && log ? sqlite.run((session) => work(log, session)) : undefined;
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
