import { timingSafeEqual } from 'node:crypto';
import type { AccountRecord, AccountsRepository } from '../../shared/store/repositories/accounts-repository';
import {
  decodeValueInfo,
  hmacWithKey,
  signedMessage,
  type ValueInfo,
} from '../../shared/signing/request-signature';
import type { NonceUse } from '../../shared/store/repositories/nonces-repository';
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
  /** HMAC-SHA256 hex under the account's secret key. */
  hmac: (message: string) => string;
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
    const now = this.now();
    const checked = this.checkFormat(headers, now);
    if (typeof checked === 'string') return { ok: false, reason: checked };
    const { info, apiKey } = checked;
    // What this process already knows is used as is, without a turn of the event loop: a known client's request
    // waits once, for its nonce.
    const account = this.freshCached(apiKey, now) ?? (await this.account(apiKey, now));
    if (!account || !account.record.active) {
      this.passphrases.forget(apiKey);
      return { ok: false, reason: 'account' };
    }
    const hash = account.record.passphraseHash;
    const passphrase = headers.passphrase;
    if (
      !this.passphrases.verified(apiKey, hash, passphrase) &&
      !(await this.passphrases.matches(apiKey, hash, passphrase))
    )
      return { ok: false, reason: 'passphrase' };
    if (!this.signatureMatches(account, headers, info, line)) return { ok: false, reason: 'signature' };

    // Only a request that is otherwise valid spends its nonce, so garbage cannot burn a client's nonces.
    const nonce = this.nonceUse(account, info, now);
    if (!(await this.nonces.use(nonce))) return { ok: false, reason: 'replay' };
    return { ok: true, context: this.contextOf(account, info) };
  }

  /**
   * Checks 1 to 4 but the nonce from what this process already knows, with no store or Redis call: the account row
   * cached and fresh, active, and this passphrase already through the slow hash. Returns the context and the nonce
   * to spend when all of it passes, otherwise undefined (the request then goes through `authenticate`, which also
   * tells the failures apart). Has no effect on any state.
   */
  verifyKnown(
    headers: SignedHeaders,
    line: RequestLine,
  ): { context: AuthContext; nonce: NonceUse } | undefined {
    const now = this.now();
    const checked = this.checkFormat(headers, now);
    if (typeof checked === 'string') return undefined;
    const { info, apiKey } = checked;
    const account = this.freshCached(apiKey, now);
    if (!account || !account.record.active) return undefined;
    if (!this.passphrases.verified(apiKey, account.record.passphraseHash, headers.passphrase))
      return undefined;
    if (!this.signatureMatches(account, headers, info, line)) return undefined;
    return { context: this.contextOf(account, info), nonce: this.nonceUse(account, info, now) };
  }

  /** The header formats, the time window and the key's form: a failure reason, or the parts to check further. */
  private checkFormat(
    headers: SignedHeaders,
    now: number,
  ): AuthFailure | { info: ValueInfo; apiKey: string } {
    const info = decodeValueInfo(headers.valueInfo);
    if (!info || !/^\d{1,12}$/.test(info.timestamp) || !/^[A-Za-z0-9_-]{43}$/.test(info.bodyHash)) {
      return 'malformed';
    }
    // Whole seconds on both sides, so the window is exactly ±300 s inclusive whatever the server's milliseconds.
    if (Math.abs(Math.floor(now / 1000) - Number(info.timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) {
      return 'timestamp';
    }
    if (!/^[0-9a-fA-F]{24}$/.test(info.nonce)) return 'nonce-format';
    if (!UUID.test(headers.apiKey)) return 'account';
    return { info, apiKey: headers.apiKey.toLowerCase() };
  }

  private signatureMatches(
    account: CachedAccount,
    headers: SignedHeaders,
    info: ValueInfo,
    line: RequestLine,
  ): boolean {
    const expected = account.hmac(
      signedMessage({
        timestamp: info.timestamp,
        nonce: info.nonce,
        method: line.method.toUpperCase(),
        path: line.path,
        query: canonicalQuery(line.rawQuery),
        bodyHash: info.bodyHash,
      }),
    );
    return equalStrings(expected, headers.signature);
  }

  /**
   * The nonce is remembered for as long as its timestamp can still pass the window (until the end of the second
   * timestamp + 300): a request signed with a timestamp ahead of the server clock must not become replayable when
   * a plain "now + 5 minutes" record expires.
   */
  private nonceUse(account: CachedAccount, info: ValueInfo, now: number): NonceUse {
    const expiresAt = Math.max(now, (Number(info.timestamp) + 1) * 1000) + NONCE_TTL_MS;
    return { apiKey: account.record.apiKey, nonce: info.nonce.toLowerCase(), expiresAt };
  }

  private contextOf(account: CachedAccount, info: ValueInfo): AuthContext {
    return { apiKey: account.record.apiKey, accountType: 'integrator', bodyHash: info.bodyHash };
  }

  /** The key's cached row while it is fresh. */
  private freshCached(key: string, now: number): CachedAccount | undefined {
    const cached = this.cache.get(key);
    return cached && now - cached.fetchedAt < this.cacheTtlMs ? cached : undefined;
  }

  private account(key: string, now: number): Promise<CachedAccount | undefined> {
    const fresh = this.freshCached(key, now);
    if (fresh) return Promise.resolve(fresh);
    let load = this.loading.get(key);
    if (!load) {
      load = this.load(key, this.cache.get(key), now).finally(() => this.loading.delete(key));
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
    // The secret's HMAC key is set up once per secret: a row read again with the same secret keeps it.
    const entry: CachedAccount = {
      record,
      hmac:
        cached && cached.record.secretEncrypted === record.secretEncrypted
          ? cached.hmac
          : hmacWithKey(this.secretBox.open(record.secretEncrypted, record.apiKey)),
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
