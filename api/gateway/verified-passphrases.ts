import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { verifyPassphrase } from './passphrase-hash';

/** Checks a passphrase against its stored slow hash (scrypt). */
export type PassphraseVerifier = (passphrase: string, storedHash: string) => Promise<boolean>;

interface Entry {
  /** The account's stored hash the entry vouches for: a changed passphrase starts a new entry. */
  storedHash: string;
  /** Keyed digest (see `digestOf`) of the passphrase that passed the slow hash. */
  verified?: Buffer;
  /** Slow verifications under way, by keyed digest of the passphrase: concurrent requests share one. */
  pending: Map<string, Promise<boolean>>;
}

/**
 * Passphrases that already passed scrypt, per API key, so only the first request of a key in this process pays
 * for it, and a burst of requests on a key new to the process pays once. Only a keyed digest (SHA-256 of a secret
 * made at start followed by the passphrase) is kept, never the passphrase, and it is compared in constant time.
 */
export class VerifiedPassphrases {
  private readonly entries = new Map<string, Entry>();
  /** Hex: the digest is one call of the one-shot hash over a string, a third of an HMAC's cost per request. */
  private readonly digestKey = randomBytes(32).toString('hex');

  constructor(
    // Looked up at each call, not bound once: the module's export is what runs (and what a test may count).
    private readonly verify: PassphraseVerifier = (passphrase, storedHash) =>
      verifyPassphrase(passphrase, storedHash),
  ) {}

  /**
   * A fixed-length secret prefix then the passphrase: equal digests mean equal passphrases, and without the
   * process's secret a digest cannot be checked against guesses.
   */
  private digestOf(passphrase: string): Buffer {
    return hash('sha256', this.digestKey + passphrase, 'buffer');
  }

  async matches(apiKey: string, storedHash: string, passphrase: string): Promise<boolean> {
    const digest = this.digestOf(passphrase);
    let entry = this.entries.get(apiKey);
    if (!entry || entry.storedHash !== storedHash) {
      entry = { storedHash, pending: new Map() };
      this.entries.set(apiKey, entry);
    }
    if (entry.verified && timingSafeEqual(digest, entry.verified)) return true;
    // The digest is keyed with a secret of this process: looking it up in a map reveals nothing of the passphrase.
    const id = digest.toString('base64');
    let pending = entry.pending.get(id);
    if (!pending) {
      const owner = entry;
      pending = this.verify(passphrase, storedHash).then(
        (ok) => {
          owner.pending.delete(id);
          // Forgotten or replaced meanwhile (deactivated, passphrase changed): the result vouches for nothing more.
          if (ok && this.entries.get(apiKey) === owner) owner.verified = digest;
          return ok;
        },
        (err: unknown) => {
          owner.pending.delete(id);
          throw err;
        },
      );
      entry.pending.set(id, pending);
    }
    return pending;
  }

  /** Whether this passphrase already passed the slow hash for the key's current stored hash; never hashes slowly. */
  verified(apiKey: string, storedHash: string, passphrase: string): boolean {
    const entry = this.entries.get(apiKey);
    if (!entry?.verified || entry.storedHash !== storedHash) return false;
    return timingSafeEqual(this.digestOf(passphrase), entry.verified);
  }

  /** Drops what is known of a key: called when its account is gone or deactivated. */
  forget(apiKey: string): void {
    this.entries.delete(apiKey);
  }

  get size(): number {
    return this.entries.size;
  }
}
