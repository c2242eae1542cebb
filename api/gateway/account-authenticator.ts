import { timingSafeEqual } from 'node:crypto';
import type { AccountRecord, AccountsRepository } from '../../shared/store/repositories/accounts-repository';
import { decodeValueInfo, hmacHex, signedMessage } from '../../shared/signing/request-signature';
import { canonicalQuery } from '../../shared/signing/canonical-query';
import type { NonceLedger } from './nonce-ledger';
import type { SecretBox } from '../../shared/signing/secret-box';
import { VerifiedPassphrases, type PassphraseVerifier } from './verified-passphrases';

export const TIMESTAMP_TOLERANCE_SECONDS = 300;
export const NONCE_TTL_MS = 5 * 60 * 1000;

export interface SignedHeaders {
  apiKey: string;
  valueInfo: string;
  passphrase: string;
  signature: string;
}

export interface RequestLine {
  method: string;
  path: string;
  /** Raw query string after `?`, without it. */
  rawQuery: string;
}

export interface AuthContext {
  apiKey: string;
  accountType: 'integrator';
  /** The bodyHash the client signed; the service compares it with the body it received. */
  bodyHash: string;
}

interface CachedAccount {
  record: AccountRecord;
  secretKey: string;
  fetchedAt: number;
}

export interface AuthenticatorDeps {
  accounts: AccountsRepository;
  nonces: NonceLedger;
  secretBox: SecretBox;
  /** How long an account row read from the store is trusted. */
  cacheTtlMs: number;
  now?: () => number;
  /** The slow passphrase check (scrypt by default). */
  verifyPassphrase?: PassphraseVerifier;
}

export type AuthFailure =
  'malformed' | 'timestamp' | 'nonce-format' | 'account' | 'passphrase' | 'signature' | 'replay';

export type AuthResult = { ok: true; context: AuthContext } | { ok: false; reason: AuthFailure };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Checks 1 to 4 of "What the server verifies". The reason is for logs and metrics only, never for the client. */
export class AccountAuthenticator {
  private readonly cache = new Map<string, CachedAccount>();
  /** Store reads under way, by key: a burst on a key new to the process reads its row once. */
  private readonly loading = new Map<string, Promise<CachedAccount | undefined>>();
  private readonly passphrases: VerifiedPassphrases;
  private readonly accounts: AccountsRepository;
  private readonly nonces: NonceLedger;
  private readonly secretBox: SecretBox;
  private readonly cacheTtlMs: number;
  private readonly now: () => number;

  constructor(deps: AuthenticatorDeps) {
    this.accounts = deps.accounts;
    this.nonces = deps.nonces;
    this.secretBox = deps.secretBox;
    this.cacheTtlMs = deps.cacheTtlMs;
    this.now = deps.now ?? Date.now;
    this.passphrases = new VerifiedPassphrases(deps.verifyPassphrase);
  }

  async authenticate(headers: SignedHeaders, line: RequestLine): Promise<AuthResult> {
    const info = decodeValueInfo(headers.valueInfo);
    if (!info || !/^\d{1,12}$/.test(info.timestamp) || !/^[A-Za-z0-9_-]{43}$/.test(info.bodyHash)) {
      return { ok: false, reason: 'malformed' };
    }
    const now = this.now();
    // Whole seconds on both sides, so the window is exactly ±300 s inclusive whatever the server's milliseconds.
    const timestamp = Number(info.timestamp);
    if (Math.abs(Math.floor(now / 1000) - timestamp) > TIMESTAMP_TOLERANCE_SECONDS) {
      return { ok: false, reason: 'timestamp' };
    }
    if (!/^[0-9a-fA-F]{24}$/.test(info.nonce)) return { ok: false, reason: 'nonce-format' };
    if (!UUID.test(headers.apiKey)) return { ok: false, reason: 'account' };

    const apiKey = headers.apiKey.toLowerCase();
    const account = await this.account(apiKey, now);
    if (!account || !account.record.active) {
      this.passphrases.forget(apiKey);
      return { ok: false, reason: 'account' };
    }
    if (!(await this.passphrases.matches(apiKey, account.record.passphraseHash, headers.passphrase)))
      return { ok: false, reason: 'passphrase' };

    const expected = hmacHex(
      account.secretKey,
      signedMessage({
        timestamp: info.timestamp,
        nonce: info.nonce,
        method: line.method.toUpperCase(),
        path: line.path,
        query: canonicalQuery(line.rawQuery),
        bodyHash: info.bodyHash,
      }),
    );
    if (!equalStrings(expected, headers.signature)) return { ok: false, reason: 'signature' };

    // Only a request that is otherwise valid spends its nonce, so garbage cannot burn a client's nonces. The nonce
    // is remembered for as long as its timestamp can still pass the window (until the end of the second
    // timestamp + 300): a request signed with a timestamp ahead of the server clock must not become replayable
    // when a plain "now + 5 minutes" record expires.
    const expiresAt = Math.max(now, (timestamp + 1) * 1000) + NONCE_TTL_MS;
    if (
      !(await this.nonces.use({ apiKey: account.record.apiKey, nonce: info.nonce.toLowerCase(), expiresAt }))
    ) {
      return { ok: false, reason: 'replay' };
    }
    return {
      ok: true,
      context: { apiKey: account.record.apiKey, accountType: 'integrator', bodyHash: info.bodyHash },
    };
  }

  private account(key: string, now: number): Promise<CachedAccount | undefined> {
    const cached = this.cache.get(key);
    if (cached && now - cached.fetchedAt < this.cacheTtlMs) return Promise.resolve(cached);
    let load = this.loading.get(key);
    if (!load) {
      load = this.load(key, cached, now).finally(() => this.loading.delete(key));
      this.loading.set(key, load);
    }
    return load;
  }

  private async load(
    key: string,
    cached: CachedAccount | undefined,
    now: number,
  ): Promise<CachedAccount | undefined> {
    const record = await this.accounts.findByApiKey(key);
    if (!record) {
      this.cache.delete(key);
      return undefined;
    }
    const entry: CachedAccount = {
      record,
      secretKey:
        cached && cached.record.secretEncrypted === record.secretEncrypted
          ? cached.secretKey
          : this.secretBox.open(record.secretEncrypted, record.apiKey),
      fetchedAt: now,
    };
    this.cache.set(key, entry);
    return entry;
  }
}

function equalStrings(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
