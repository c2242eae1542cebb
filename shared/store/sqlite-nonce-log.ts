import type { SqliteSession } from './sqlite-direct';

/** A nonce to spend: the key's, until when (Unix ms) it stays used. */
interface Use {
  apiKey: string;
  nonce: string;
  expiresAt: number;
}

interface LogRow {
  id: number;
  api_key: string;
  nonce: string;
  expires_at: number;
}

const TAIL = 'select id, api_key, nonce, expires_at from request_nonce_log where id > ? order by id';
const APPEND = 'insert into request_nonce_log (api_key, nonce, expires_at) values (?, ?, ?)';
const PURGE = 'delete from request_nonce_log where expires_at <= ?';
const COUNT = 'select count(*) as n from request_nonce_log where nonce = ?';

/** Learnt expiries forgotten at once after this many, once they are also half of what is kept. */
const COMPACT_AFTER = 4096;

/**
 * The request nonces of a SQLite store: an append-only log in the store (`request_nonce_log`) and, in this process,
 * the nonces of the log still in their window. A batch, in one transaction holding the store's write lock from its
 * start (BEGIN IMMEDIATE): reads the rows other processes appended since the last it saw (ids only grow), decides
 * each use against what is known, appends the accepted ones. So a replay to any process on the store is refused,
 * and a process started anew learns every nonce of the window from the log. Appends at the end of the log cost a
 * fraction of inserts under a unique key of random nonces, where each dirtied a page of its own.
 * A nonce whose time ran out counts as unused (its record, purged or not, no longer blocks); two uses of one nonce
 * in a batch: only the first is accepted.
 */
export class SqliteNonceLog {
  /** `<apiKey> <nonce>` → until when it stays used. */
  private readonly usedUntil = new Map<string, number>();
  /** What was learnt, in the order it was learnt (nearly the order it runs out): forgotten from the front. */
  private untils: number[] = [];
  private keys: string[] = [];
  private head = 0;
  /** The last log row this process knows. */
  private lastId = 0;

  /** Whether each use was accepted, in order; spends the accepted ones. */
  use(session: SqliteSession, uses: readonly Use[], now: number): boolean[] {
    const tail = session.statement(TAIL);
    const append = session.statement(APPEND);
    const fresh = new Map<string, number>();
    let lastId = this.lastId;
    const accepted = session.db
      .transaction(() => {
        for (const row of tail.iterate(this.lastId) as IterableIterator<LogRow>) {
          const until = Number(row.expires_at);
          if (until > now) this.learn(`${row.api_key} ${row.nonce}`, until);
          lastId = Number(row.id);
        }
        return uses.map((u) => {
          const key = `${u.apiKey} ${u.nonce}`;
          const until = fresh.get(key) ?? this.usedUntil.get(key);
          if (until !== undefined && until > now) return false;
          fresh.set(key, u.expiresAt);
          lastId = Number(append.run(u.apiKey, u.nonce, u.expiresAt).lastInsertRowid);
          return true;
        });
      })
      .immediate();
    // Committed: what it spent is known from now on.
    for (const [key, until] of fresh) this.learn(key, until);
    this.lastId = lastId;
    this.forget(now);
    return accepted;
  }

  /** Deletes the log's records whose time ran out; returns how many. */
  purgeExpired(session: SqliteSession, now: number): number {
    this.forget(now);
    return session.statement(PURGE).run(now).changes;
  }

  /** How many records of the log hold this nonce, under any key (expired ones not purged yet included). */
  records(session: SqliteSession, nonce: string): number {
    return (session.statement(COUNT).get(nonce) as { n: number }).n;
  }

  private learn(key: string, until: number): void {
    const known = this.usedUntil.get(key);
    if (known !== undefined && known >= until) return;
    this.usedUntil.set(key, until);
    this.untils.push(until);
    this.keys.push(key);
  }

  /**
   * Forgets what ran out, from the oldest learnt on, up to the first that has not: one learnt later that ran out
   * sooner stays in memory a little longer (it counts as unused all the same).
   */
  private forget(now: number): void {
    while (this.head < this.untils.length && this.untils[this.head]! <= now) {
      const key = this.keys[this.head]!;
      if (this.usedUntil.get(key) === this.untils[this.head]) this.usedUntil.delete(key);
      this.head++;
    }
    if (this.head >= COMPACT_AFTER && this.head * 2 >= this.untils.length) {
      this.untils = this.untils.slice(this.head);
      this.keys = this.keys.slice(this.head);
      this.head = 0;
    }
  }
}
