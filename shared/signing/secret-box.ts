import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

function checkedKey(key: Buffer): Buffer {
  if (key.length !== 32) throw new Error('The master key must be 32 bytes');
  return key;
}

/**
 * AES-256-GCM under the master key; the stored form is `v1.<iv>.<tag>.<ciphertext>` in base64url. While a master key
 * is rotated, the box also opens what the previous key sealed (and only seals under the current one).
 */
export class SecretBox {
  private readonly key: Buffer;
  private readonly previous: Buffer | undefined;

  constructor(key: Buffer, previous?: Buffer) {
    this.key = checkedKey(key);
    this.previous = previous === undefined ? undefined : checkedKey(previous);
  }

  seal(plaintext: string, associatedData: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    // Binding the box to its account means a copied row cannot lend its secret to another key.
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ct]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  open(sealed: string, associatedData: string): string {
    try {
      return openWith(this.key, sealed, associatedData);
    } catch (err) {
      if (!this.previous) throw err;
      return openWith(this.previous, sealed, associatedData);
    }
  }

  /**
   * The secret sealed anew under the current key when the previous key sealed it; undefined when the current key
   * already did. Throws when neither opens it.
   */
  reseal(sealed: string, associatedData: string): string | undefined {
    try {
      openWith(this.key, sealed, associatedData);
      return undefined;
    } catch (err) {
      if (!this.previous) throw err;
      return this.seal(openWith(this.previous, sealed, associatedData), associatedData);
    }
  }
}

function openWith(key: Buffer, sealed: string, associatedData: string): string {
  const [version, iv, tag, ct] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || ct === undefined) throw new Error('Unreadable sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}
