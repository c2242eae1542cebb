import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../shared/signing/secret-box';

describe('SecretBox while the master key is rotated', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const before = new SecretBox(oldKey);
  const rotating = new SecretBox(newKey, oldKey);
  const after = new SecretBox(newKey);

  it('opens what either key sealed, seals under the new key only', () => {
    const old = before.seal('secret-a', 'key-a');
    expect(rotating.open(old, 'key-a')).toBe('secret-a');
    const sealed = rotating.seal('secret-b', 'key-b');
    expect(after.open(sealed, 'key-b')).toBe('secret-b');
    expect(() => before.open(sealed, 'key-b')).toThrow();
    // Still bound to its row: another row's id does not open it, under either key.
    expect(() => rotating.open(old, 'key-b')).toThrow();
  });

  it('reseals only what the previous key sealed, and refuses what neither opens', () => {
    const old = before.seal('secret-a', 'key-a');
    const fresh = rotating.reseal(old, 'key-a');
    expect(fresh).toBeDefined();
    expect(after.open(fresh!, 'key-a')).toBe('secret-a');
    expect(rotating.reseal(fresh!, 'key-a')).toBeUndefined();
    expect(() => rotating.reseal(new SecretBox(randomBytes(32)).seal('x', 'key-a'), 'key-a')).toThrow();
    expect(() => after.reseal(old, 'key-a')).toThrow();
  });
});
