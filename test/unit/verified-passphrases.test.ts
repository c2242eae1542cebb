import { VerifiedPassphrases } from '../../api/gateway/verified-passphrases';

/** A verifier whose answers the test releases by hand: "right" is the only passphrase of any stored hash. */
function manualVerifier() {
  const waiting: Array<() => void> = [];
  let failure: Error | undefined;
  const calls: Array<[string, string]> = [];
  const verify = jest.fn(
    (passphrase: string, storedHash: string) =>
      new Promise<boolean>((resolve, reject) => {
        calls.push([passphrase, storedHash]);
        waiting.push(() => (failure ? reject(failure) : resolve(passphrase === 'right')));
      }),
  );
  return {
    verify,
    calls,
    releaseAll() {
      for (const release of waiting.splice(0)) release();
    },
    failWith(err: Error | undefined) {
      failure = err;
    },
  };
}

describe('VerifiedPassphrases', () => {
  it('runs one slow verification for a burst of identical requests, then none', async () => {
    const v = manualVerifier();
    const cache = new VerifiedPassphrases(v.verify);
    const burst = Array.from({ length: 100 }, () => cache.matches('key-1', 'hash-1', 'right'));
    v.releaseAll();
    expect(await Promise.all(burst)).toEqual(Array(100).fill(true));
    expect(v.verify).toHaveBeenCalledTimes(1);
    expect(await cache.matches('key-1', 'hash-1', 'right')).toBe(true);
    expect(v.verify).toHaveBeenCalledTimes(1);
  });

  it('shares a failing verification among concurrent copies but never caches a refusal', async () => {
    const v = manualVerifier();
    const cache = new VerifiedPassphrases(v.verify);
    const burst = Array.from({ length: 20 }, () => cache.matches('key-1', 'hash-1', 'wrong'));
    v.releaseAll();
    expect(await Promise.all(burst)).toEqual(Array(20).fill(false));
    expect(v.verify).toHaveBeenCalledTimes(1);
    const again = cache.matches('key-1', 'hash-1', 'wrong');
    v.releaseAll();
    expect(await again).toBe(false);
    expect(v.verify).toHaveBeenCalledTimes(2);
  });

  it('does not let a verified passphrase vouch for another one, nor for another key', async () => {
    const v = manualVerifier();
    const cache = new VerifiedPassphrases(v.verify);
    const first = cache.matches('key-1', 'hash-1', 'right');
    v.releaseAll();
    expect(await first).toBe(true);
    const others = [
      cache.matches('key-1', 'hash-1', 'righ'),
      cache.matches('key-1', 'hash-1', 'right '),
      cache.matches('key-2', 'hash-2', 'right'),
    ];
    v.releaseAll();
    expect(await Promise.all(others)).toEqual([false, false, true]);
    expect(v.calls).toEqual([
      ['right', 'hash-1'],
      ['righ', 'hash-1'],
      ['right ', 'hash-1'],
      ['right', 'hash-2'],
    ]);
  });

  it('verifies again once the stored hash changed (a new passphrase)', async () => {
    const v = manualVerifier();
    const cache = new VerifiedPassphrases(v.verify);
    const before = cache.matches('key-1', 'hash-1', 'right');
    v.releaseAll();
    await before;
    const after = cache.matches('key-1', 'hash-2', 'right');
    v.releaseAll();
    expect(await after).toBe(true);
    expect(v.calls).toEqual([
      ['right', 'hash-1'],
      ['right', 'hash-2'],
    ]);
  });

  it('forgets a key, also when it is forgotten while its verification runs', async () => {
    const v = manualVerifier();
    const cache = new VerifiedPassphrases(v.verify);
    const first = cache.matches('key-1', 'hash-1', 'right');
    v.releaseAll();
    await first;
    cache.forget('key-1');
    const during = cache.matches('key-1', 'hash-1', 'right');
    cache.forget('key-1');
    v.releaseAll();
    // The caller still gets its answer, but it vouches for nothing afterwards.
    expect(await during).toBe(true);
    const after = cache.matches('key-1', 'hash-1', 'right');
    v.releaseAll();
    expect(await after).toBe(true);
    expect(v.verify).toHaveBeenCalledTimes(3);
  });

  it('passes a verifier error to every waiting request and tries again on the next', async () => {
    const v = manualVerifier();
    const cache = new VerifiedPassphrases(v.verify);
    v.failWith(new Error('out of memory'));
    const burst = [cache.matches('key-1', 'hash-1', 'right'), cache.matches('key-1', 'hash-1', 'right')];
    v.releaseAll();
    for (const r of await Promise.allSettled(burst)) expect(r.status).toBe('rejected');
    v.failWith(undefined);
    const next = cache.matches('key-1', 'hash-1', 'right');
    v.releaseAll();
    expect(await next).toBe(true);
    expect(v.verify).toHaveBeenCalledTimes(2);
  });
});
