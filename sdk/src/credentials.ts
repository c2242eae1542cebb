import { TasError } from './errors';

/** What POST /accounts hands out once: the API key ID, the secret key and the passphrase (the password). */
export interface Credentials {
  apiKeyId: string;
  secretKey: string;
  passphrase: string;
}

/**
 * Header values are byte strings, and their edges' spaces are trimmed on the way: a passphrase (or key ID) with a
 * character beyond U+00FF, a control character or spaces at either end would never authenticate, and an account
 * created with such a password could never sign. Refused before anything is sent; the value is never shown.
 */
export function assertSendableInHeader(what: 'password' | 'passphrase' | 'API key ID', value: string): void {
  if (/[^\u0020-\u007e\u00a0-\u00ff]/.test(value) || /^\s|\s$/.test(value)) {
    throw new TasError({
      code: 'INVALID_CREDENTIALS',
      status: 0,
      message: `the ${what} cannot travel in an HTTP header: use printable Latin-1 characters, no spaces at either end`,
    });
  }
}
