import fc from 'fast-check';
import { getAddress, isAddress } from 'ethers';
import { AccountAuthenticator, NONCE_TTL_MS } from '../../api/gateway/account-authenticator';
import { VerifiedPassphrases } from '../../api/gateway/verified-passphrases';
import { canonicalFormOf } from '../../api/http/request-body';
import { isEvmAddress } from '../../api/http/validator';
import { CHECKED_ADDRESSES_MAX } from '../../shared/chain/checksum-address';
import { newPendingLimitOrder, type LimitOrder, type LimitOrderInput } from '../../shared/domain/limit-order';
import { canonicalJson } from '../../shared/signing/canonical-json';
import { EMPTY_BODY_HASH, hmacHex, hmacWithKey, signRequest } from '../../shared/signing/request-signature';
import { SecretBox } from '../../shared/signing/secret-box';
import type { AccountRecord, AccountsRepository } from '../../shared/store/repositories/accounts-repository';
import { BatchedLookup } from '../../shared/store/batched-lookup';
import { GroupCommit } from '../../shared/store/group-commit';
import { storedLimitOrderInput } from '../factories/stored-orders';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** The canonical form as request-body computed it before (always through canonicalJson). */
function canonicalBefore(parsed: unknown): string | undefined {
  try {
    return canonicalJson(parsed);
  } catch {
    return undefined;
  }
}

/** JSON text of `value` with each object's keys in a shuffled order and optional whitespace. */
function writeShuffled(value: unknown, order: number[], spaced: boolean): string {
  let n = 0;
  const write = (v: unknown): string => {
    if (v === null || typeof v !== 'object') return JSON.stringify(v);
    if (Array.isArray(v)) return `[${v.map(write).join(spaced ? ', ' : ',')}]`;
    const keys = Object.keys(v);
    const shift = order[n++ % order.length]! % Math.max(1, keys.length);
    const rotated = [...keys.slice(shift), ...keys.slice(0, shift)];
    const sep = spaced ? ': ' : ':';
    return `{${rotated.map((k) => `${JSON.stringify(k)}${sep}${write((v as Record<string, unknown>)[k])}`).join(',')}}`;
  };
  return write(value);
}

describe('a body already canonical is used as is', () => {
  it('gives exactly the canonical form canonicalJson gives, for any JSON body however it is written', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.array(fc.nat(), { minLength: 1 }),
        fc.boolean(),
        fc.constantFrom('canonical', 'stringify', 'shuffled'),
        (value, order, spaced, form) => {
          const text =
            form === 'canonical'
              ? (canonicalBefore(value) ?? JSON.stringify(value))
              : form === 'stringify'
                ? JSON.stringify(value)
                : writeShuffled(value, order, spaced);
          const raw = Buffer.from(text, 'utf8');
          const parsed: unknown = JSON.parse(text);
          expect(canonicalFormOf(parsed, raw)).toBe(canonicalBefore(parsed));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['integer-like keys (sorted as strings, not as numbers)', '{"10":1,"9":2}'],
    ['a duplicate key', '{"a":1,"a":2}'],
    ['a number written another way', '{"a":1.0}'],
    ['an exponent', '{"a":1e2}'],
    ['an escaped character JSON.stringify writes raw', '{"a":"\\u00e9"}'],
    ['negative zero', '{"a":-0}'],
    ['a number out of range', '{"a":1e400}'],
    ['__proto__ as a key', '{"__proto__":1,"a":2}'],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])],
  ])('decides a body with %s as before', (_name, body) => {
    const raw = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    expect(canonicalFormOf(parsed, raw)).toBe(canonicalBefore(parsed));
  });
});

describe('address checksums remembered', () => {
  const hex40 = fc.array(fc.constantFrom(...'0123456789abcdefABCDEF'), { minLength: 40, maxLength: 40 });

  it('decides every address exactly as ethers does, the first time and the next', () => {
    fc.assert(
      fc.property(hex40, fc.boolean(), (chars, checksummed) => {
        let address = `0x${chars.join('')}`;
        if (checksummed) address = getAddress(address.toLowerCase());
        const expected = isAddress(address);
        expect(isEvmAddress(address)).toBe(expected);
        expect(isEvmAddress(address)).toBe(expected);
      }),
      { numRuns: 500 },
    );
    // A correct checksum, the same address with one letter's case flipped, and malformed strings.
    const good = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    const bad = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD';
    for (let i = 0; i < 2; i++) {
      expect(isEvmAddress(good)).toBe(true);
      expect(isEvmAddress(bad)).toBe(false);
      expect(isEvmAddress(good.toLowerCase())).toBe(true);
      expect(isEvmAddress(`0X${good.slice(2)}`)).toBe(false);
      expect(isEvmAddress(`${good}0`)).toBe(false);
      expect(isEvmAddress(good.slice(0, 41))).toBe(false);
    }
  });

  it('keeps at most CHECKED_ADDRESSES_MAX verdicts and still decides correctly past that', () => {
    for (let i = 0; i < CHECKED_ADDRESSES_MAX + 50; i++) {
      expect(isEvmAddress(`0x${i.toString(16).padStart(40, '0')}`)).toBe(true);
    }
    expect(isEvmAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toBe(false);
    expect(isEvmAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toBe(true);
  });
});

describe('newPendingLimitOrder', () => {
  const input: LimitOrderInput = storedLimitOrderInput();
  /** What it built before: the input spread, then the service's initial values. */
  const before = (i: LimitOrderInput): LimitOrder => ({
    ...i,
    maxFeeBps: i.maxFeeBps ?? null,
    id: 'id',
    apiKey: 'key',
    status: 'pending',
    txHash: '',
    executorAddress: '',
    reasonFail: [],
    diagnosis: null,
    attemptNumber: 0,
    allowance: '',
    estimateGas: '',
    effectivePriceGas: '',
    leaseOwner: null,
    leaseExpiresAt: null,
    nextAttemptAt: 0,
    version: 0,
    createdAt: 5,
    updatedAt: 5,
    deletedAt: null,
  });

  it('builds the same order as before, with and without a fee cap', () => {
    expect(newPendingLimitOrder('id', 'key', input, 5)).toEqual(before(input));
    expect(newPendingLimitOrder('id', 'key', { ...input, maxFeeBps: 30 }, 5)).toEqual(
      before({ ...input, maxFeeBps: 30 }),
    );
  });

  it('takes only the fields of an order from a body carrying more', () => {
    const body = { ...input, status: 'completed', txHash: '0x1', extra: 'ignored' } as LimitOrderInput;
    expect(newPendingLimitOrder('id', 'key', body, 5)).toEqual(before(input));
  });
});

describe('GroupCommit', () => {
  it('commits what arrives together in one batch, and what arrives meanwhile in the next', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const commit = jest.fn(async (items: number[]) => {
      batches.push(items);
      if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const group = new GroupCommit(commit);
    const done: number[] = [];
    const first = [1, 2, 3].map((n) => group.submit(n).then(() => done.push(n)));
    await tick();
    // The first batch is under way: nothing is acknowledged before it commits.
    const second = [4, 5].map((n) => group.submit(n).then(() => done.push(n)));
    await tick();
    expect(batches).toEqual([[1, 2, 3]]);
    expect(done).toEqual([]);
    release();
    await Promise.all([...first, ...second]);
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    expect(done).toEqual([1, 2, 3, 4, 5]);
  });

  it('retries a failed batch item by item: only the bad item fails, with its own error', async () => {
    const commit = jest.fn(async (items: number[]) => {
      if (items.includes(2)) throw new Error(`bad ${items.join(',')}`);
    });
    const group = new GroupCommit(commit);
    const results = await Promise.allSettled([1, 2, 3].map((n) => group.submit(n)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('bad 2'));
    expect(commit.mock.calls).toEqual([[[1, 2, 3]], [[1]], [[2]], [[3]]]);
  });

  it('fails a whole batch at once when the store cannot be reached (no retry one by one)', async () => {
    const unreachable = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), {
      code: 'ECONNREFUSED',
    });
    const commit = jest.fn(async () => {
      throw unreachable;
    });
    const group = new GroupCommit(commit);
    const results = await Promise.allSettled([1, 2, 3].map((n) => group.submit(n)));
    expect(results.map((r) => (r as PromiseRejectedResult).reason)).toEqual([
      unreachable,
      unreachable,
      unreachable,
    ]);
    expect(commit).toHaveBeenCalledTimes(1);
  });

  it('keeps several transactions under way when allowed, each acknowledged at its own commit', async () => {
    const releases: Array<() => void> = [];
    const batches: number[][] = [];
    const group = new GroupCommit(
      async (items: number[]) => {
        batches.push(items);
        await new Promise<void>((resolve) => releases.push(resolve));
      },
      { concurrency: 2 },
    );
    const done: number[] = [];
    const submit = (n: number) => group.submit(n).then(() => done.push(n));
    const first = submit(1);
    await tick();
    const second = submit(2);
    await tick();
    const third = [submit(3), submit(4)];
    await tick();
    // Two under way, the third batch waits for a free place.
    expect(batches).toEqual([[1], [2]]);
    releases[1]!();
    await second;
    expect(done).toEqual([2]);
    await tick();
    expect(batches).toEqual([[1], [2], [3, 4]]);
    releases[0]!();
    releases[2]!();
    await Promise.all([first, ...third]);
    expect(done).toEqual([2, 1, 3, 4]);
  });

  it('keeps batches to the most items per transaction', async () => {
    const sizes: number[] = [];
    const group = new GroupCommit(async (items: number[]) => void sizes.push(items.length), { maxBatch: 4 });
    await Promise.all(Array.from({ length: 10 }, (_, i) => group.submit(i)));
    expect(sizes).toEqual([4, 4, 2]);
  });
});

describe('BatchedLookup', () => {
  it('reads the keys of one turn in one fetch, padded to a power of two, and answers each its own', async () => {
    const fetches: string[][] = [];
    const lookup = new BatchedLookup<string>(async (keys) => {
      fetches.push(keys);
      return new Map(keys.filter((k) => k !== 'missing').map((k) => [k, `value of ${k}`]));
    });
    const answers = await Promise.all(['a', 'b', 'missing', 'a', 'c'].map((k) => lookup.get(k)));
    expect(answers).toEqual(['value of a', 'value of b', undefined, 'value of a', 'value of c']);
    expect(fetches).toEqual([['a', 'b', 'missing', 'c']]);
    expect(await lookup.get('d')).toBe('value of d');
    const three = await Promise.all(['x', 'y', 'z'].map((k) => lookup.get(k)));
    expect(three).toEqual(['value of x', 'value of y', 'value of z']);
    expect(fetches.slice(1)).toEqual([['d'], ['x', 'y', 'z', 'z']]);
  });

  it('fails every read of a batch whose fetch failed, and serves the next batch', async () => {
    let fail = true;
    const lookup = new BatchedLookup<number>(async (keys) => {
      if (fail) throw new Error('store down');
      return new Map(keys.map((k) => [k, k.length]));
    });
    await expect(Promise.all([lookup.get('a'), lookup.get('bb')])).rejects.toThrow('store down');
    fail = false;
    expect(await lookup.get('ccc')).toBe(3);
  });
});

describe('signing checks set up once', () => {
  it('hmacWithKey signs exactly as hmacHex', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (secret, message) => {
        expect(hmacWithKey(secret)(message)).toBe(hmacHex(secret, message));
      }),
    );
  });

  it('VerifiedPassphrases.verified answers from what passed scrypt only, never hashing slowly', async () => {
    const slow = jest.fn(async (passphrase: string) => passphrase === 'right');
    const passphrases = new VerifiedPassphrases(slow);
    expect(passphrases.verified('key', 'hash-1', 'right')).toBe(false);
    expect(await passphrases.matches('key', 'hash-1', 'right')).toBe(true);
    expect(passphrases.verified('key', 'hash-1', 'right')).toBe(true);
    expect(passphrases.verified('key', 'hash-1', 'wrong')).toBe(false);
    expect(passphrases.verified('key', 'hash-2', 'right')).toBe(false);
    expect(passphrases.verified('other', 'hash-1', 'right')).toBe(false);
    passphrases.forget('key');
    expect(passphrases.verified('key', 'hash-1', 'right')).toBe(false);
    expect(slow).toHaveBeenCalledTimes(1);
  });
});

describe('AccountAuthenticator.verifyKnown: the checks a process can make alone', () => {
  const secretBox = new SecretBox(Buffer.alloc(32, 7));
  const apiKey = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b';
  const credentials = { apiKey, secretKey: 'the-secret', passphrase: 'the-passphrase' };
  let now = 1_800_000_000_000;
  let active = true;
  let secretKey = credentials.secretKey;
  const record = (): AccountRecord => ({
    apiKey,
    name: 'a',
    passphraseHash: 'stored-hash',
    secretEncrypted: secretBox.seal(secretKey, apiKey),
    active,
    createdAt: 0,
    updatedAt: 0,
  });
  const nonces = { use: jest.fn(async () => true) };
  const accounts = { findByApiKey: jest.fn(async () => record()) };
  const authenticator = new AccountAuthenticator({
    accounts: accounts as unknown as AccountsRepository,
    nonces,
    secretBox,
    cacheTtlMs: 2000,
    now: () => now,
    verifyPassphrase: async (passphrase) => passphrase === credentials.passphrase,
  });
  const request = (over: Partial<typeof credentials> = {}, nonce = 'ab'.repeat(12)) => {
    const signed = signRequest(
      { ...credentials, ...over },
      { method: 'GET', url: '/api/v1/chains', timestamp: String(Math.floor(now / 1000)), nonce },
    );
    const headers = {
      apiKey: signed.headers['x-api-key-id']!,
      valueInfo: signed.headers['x-value-info']!,
      passphrase: signed.headers['x-passphrase']!,
      signature: signed.headers['x-signature']!,
    };
    return [headers, { method: 'GET', path: '/api/v1/chains', rawQuery: '' }] as const;
  };

  it('knows nothing before the account was read and its passphrase verified, and reads nothing itself', async () => {
    expect(authenticator.verifyKnown(...request())).toBeUndefined();
    expect(accounts.findByApiKey).not.toHaveBeenCalled();
    expect(await authenticator.authenticate(...request({}, 'cd'.repeat(12)))).toMatchObject({ ok: true });
    nonces.use.mockClear();
    const known = authenticator.verifyKnown(...request());
    expect(known).toEqual({
      context: { apiKey, accountType: 'integrator', bodyHash: EMPTY_BODY_HASH },
      nonce: {
        apiKey,
        nonce: 'ab'.repeat(12),
        expiresAt: (Math.floor(now / 1000) + 1) * 1000 + NONCE_TTL_MS,
      },
    });
    // The nonce is only named: spending it is the caller's (Redis) work.
    expect(nonces.use).not.toHaveBeenCalled();
    expect(accounts.findByApiKey).toHaveBeenCalledTimes(1);
  });

  it('leaves to authenticate a wrong signature or passphrase, a stale timestamp, and a row past its TTL', () => {
    expect(authenticator.verifyKnown(...request({ secretKey: 'another' }))).toBeUndefined();
    expect(authenticator.verifyKnown(...request({ passphrase: 'another' }))).toBeUndefined();
    const [headers, line] = request();
    now += 301_000;
    expect(authenticator.verifyKnown(headers, line)).toBeUndefined();
    // Fresh signature, but the cached row is older than ACCOUNT_CACHE_TTL_MS.
    expect(authenticator.verifyKnown(...request())).toBeUndefined();
  });

  it('stops at a deactivation and follows a new secret once the row is read again', async () => {
    now += 10_000;
    active = false;
    expect(await authenticator.authenticate(...request({}, 'ef'.repeat(12)))).toEqual({
      ok: false,
      reason: 'account',
    });
    expect(authenticator.verifyKnown(...request())).toBeUndefined();
    active = true;
    secretKey = 'a-new-secret';
    now += 10_000;
    expect(await authenticator.authenticate(...request({ secretKey }, '01'.repeat(12)))).toMatchObject({
      ok: true,
    });
    expect(authenticator.verifyKnown(...request({ secretKey }))).toBeDefined();
    expect(authenticator.verifyKnown(...request())).toBeUndefined();
  });
});
