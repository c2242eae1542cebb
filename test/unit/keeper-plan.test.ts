import { AbiCoder, Interface, Wallet, getAddress } from 'ethers';
import { batchOrderFees, batchPulls, encodeExecuteBatch } from '../../keeper/plan/execute-batch-call';
import type { ExecutionOrder } from '../../keeper/plan/execution-order';
import {
  countsAsAttempt,
  decideFailure,
  FAILURE_KINDS,
  MAX_ATTEMPTS,
  OUTAGE_DELAY_MS,
} from '../../keeper/plan/failure-kinds';
import {
  fundingKey,
  fundingRecheckDelay,
  judgeFunding,
  type FundingVerdict,
} from '../../keeper/plan/funding-check';
import { limitOrderMinimumOut } from '../../keeper/plan/order-amounts';
import { plainDecimalOf as decimalOf, valueAtPrice } from '../../shared/domain/amount-bounds';
import { amountTerms, limitOrderTerms, strategyTerms } from '../../keeper/plan/order-terms';
import {
  DEFAULT_MAX_DEVIATION_BPS,
  PAIR_AUTHORIZATION_DOMAIN,
  PAIR_AUTHORIZATION_TYPES,
  integratorOf,
  orderRefOf,
} from '../../shared/domain/pair-authorization';
import {
  PairSignatureVerifier,
  isValidMakerSignature,
  isValidPairSignature,
  pairAuthorizationDigest,
  type SignatureChainReader,
} from '../../shared/domain/pair-signature';

const E18 = 10n ** 18n;

describe('limit order amounts (exact integer arithmetic)', () => {
  it('values an amount at a decimal price in the output token base units', () => {
    // 1.5 WETH at 3000.25 USDC per WETH = 4500.375 USDC.
    expect(valueAtPrice((3n * E18) / 2n, '3000.25', 18, 6)).toBe(4_500_375_000n);
    // Rounding: 1 wei of an 18-decimal token at 1 is 1e-12 of a 6-decimal unit.
    expect(valueAtPrice(1n, '1', 18, 6, 'down')).toBe(0n);
    expect(valueAtPrice(1n, '1', 18, 6, 'up')).toBe(1n);
  });

  it('takes the minimum as amount × trigger × (1 − slippage), rounded down', () => {
    // 2 WETH at 2500 with 0.5 % slippage: 5000 × 0.995 = 4975 USDC.
    expect(limitOrderMinimumOut(2n * E18, '2500', '0.5', 18, 6)).toBe(4_975_000_000n);
    expect(limitOrderMinimumOut(2n * E18, '2500', '0', 18, 6)).toBe(5_000_000_000n);
  });

  it('prints JSON numbers as plain decimals', () => {
    expect(decimalOf(0.0000001)).toBe('0.0000001');
    expect(decimalOf(1234.5)).toBe('1234.5');
    expect(() => decimalOf(-1)).toThrow(RangeError);
  });
});

describe('failure table', () => {
  it('makes funding and signature failures final at once', () => {
    for (const reason of ['BAD_SIGNATURE', 'INSUFFICIENT_BALANCE', 'INSUFFICIENT_ALLOWANCE', 'expired']) {
      expect(decideFailure(reason, 0, 1000)).toEqual({ final: true, nextAttemptAt: 1000 });
    }
  });

  it('retries market failures at the next block, without ever making them final', () => {
    expect(FAILURE_KINDS.INSUFFICIENT_OUTPUT).toBe('next-block');
    expect(decideFailure('INSUFFICIENT_OUTPUT', 50, 1000)).toEqual({ final: false, nextAttemptAt: 1000 });
  });

  it("handles the contract's price-bound and isolation failures: the market waits, a maker's own fault is final", () => {
    // Below the bound (the market left its average) and a group shedding too many orders: the next block.
    for (const reason of ['BELOW_PRICE_BOUND', 'RETRY_LIMIT']) {
      expect({ reason, decision: decideFailure(reason, 50, 1000) }).toEqual({
        reason,
        decision: { final: false, nextAttemptAt: 1000 },
      });
    }
    // No bound for the pair may come back: backed off, counted, final after MAX_ATTEMPTS.
    expect(decideFailure('NO_PRICE_BOUND', 0, 1000).final).toBe(false);
    expect(decideFailure('NO_PRICE_BOUND', 0, 1000).nextAttemptAt).toBeGreaterThan(1000);
    expect(decideFailure('NO_PRICE_BOUND', MAX_ATTEMPTS - 1, 1000).final).toBe(true);
    // Tokens that cannot be pulled from or paid to the maker: final at once.
    for (const reason of ['TRANSFER_IN_FAILED', 'PAYOUT_FAILED']) {
      expect({ reason, decision: decideFailure(reason, 0, 1000) }).toEqual({
        reason,
        decision: { final: true, nextAttemptAt: 1000 },
      });
    }
  });

  it('backs off other failures with a growing delay, final after MAX_ATTEMPTS', () => {
    const first = decideFailure('SWAP_FAILED', 0, 1000);
    const second = decideFailure('SWAP_FAILED', 1, 1000);
    expect(first.final).toBe(false);
    expect(second.nextAttemptAt - 1000).toBe(2 * (first.nextAttemptAt - 1000));
    expect(decideFailure('SWAP_FAILED', MAX_ATTEMPTS - 1, 1000).final).toBe(true);
    expect(countsAsAttempt('SWAP_FAILED')).toBe(true);
    // An unknown reason is treated as back-off, never as final on the first try.
    expect(decideFailure('SOMETHING_NEW', 0, 1000).final).toBe(false);
  });

  it('delays an order caught by an outage briefly, never counting it and never making it final', () => {
    expect(countsAsAttempt('RPC_ERROR')).toBe(false);
    for (const attempts of [0, MAX_ATTEMPTS - 1, MAX_ATTEMPTS + 10]) {
      expect(decideFailure('RPC_ERROR', attempts, 1000)).toEqual({
        final: false,
        nextAttemptAt: 1000 + OUTAGE_DELAY_MS,
      });
    }
  });

  it('makes values that cannot execute final at once', () => {
    for (const reason of [
      'INVALID_AMOUNT',
      'INVALID_PRICE',
      'INVALID_SLIPPAGE',
      'INVALID_SCHEDULE',
      'ZERO_AMOUNT',
    ]) {
      expect(decideFailure(reason, 0, 1000)).toEqual({ final: true, nextAttemptAt: 1000 });
    }
  });
});

describe('order terms: stored values read exactly, or the reason they cannot execute', () => {
  const MAX = 2n ** 256n - 1n;

  it('reads plain decimal amounts in base units, trailing zeros past the decimals included', () => {
    expect(amountTerms('1.5', 6)).toEqual({ ok: true, terms: 1_500_000n });
    expect(amountTerms('1.5000000000', 6)).toEqual({ ok: true, terms: 1_500_000n });
    expect(amountTerms(MAX.toString(), 0)).toEqual({ ok: true, terms: MAX });
  });

  it('refuses amounts that are not decimals, finer than the token, beyond uint256, or zero', () => {
    const reasons = (amount: string, decimals: number) => {
      const read = amountTerms(amount, decimals);
      return read.ok ? 'ok' : read.reason;
    };
    for (const amount of ['1e308', 'NaN', '-1', '0x10', '', '1.2.3', 'Infinity']) {
      expect({ amount, reason: reasons(amount, 18) }).toEqual({ amount, reason: 'INVALID_AMOUNT' });
    }
    expect(reasons('0.0000001', 6)).toBe('INVALID_AMOUNT');
    expect(reasons((MAX + 1n).toString(), 0)).toBe('INVALID_AMOUNT');
    expect(reasons(`1${'0'.repeat(80)}`, 18)).toBe('INVALID_AMOUNT');
    expect(reasons('0.000', 6)).toBe('ZERO_AMOUNT');
  });

  it('reads a limit order, or names the field that cannot execute', () => {
    const order = { amount: '2', priceTrigger: '2500', slippage: '0.5' };
    expect(limitOrderTerms(order, 18, 6)).toEqual({
      ok: true,
      terms: { amountIn: 2n * E18, minAmountOut: 4_975_000_000n },
    });
    const reason = (over: Partial<typeof order>) => {
      const read = limitOrderTerms({ ...order, ...over }, 18, 6);
      return read.ok ? 'ok' : read.reason;
    };
    expect(reason({ priceTrigger: '1e-9' })).toBe('INVALID_PRICE');
    expect(reason({ priceTrigger: `1${'0'.repeat(80)}` })).toBe('INVALID_PRICE');
    expect(reason({ slippage: '150' })).toBe('INVALID_SLIPPAGE');
    expect(reason({ slippage: 'abc' })).toBe('INVALID_SLIPPAGE');
    expect(reason({ amount: '1e308' })).toBe('INVALID_AMOUNT');
  });

  it('reads a DCA strategy, or names the field that cannot execute', () => {
    const strategy = {
      totalAmount: 0.3,
      iterations: 3,
      frequency: 60,
      slippage: 1,
      minPrice: null,
      maxPrice: 1e308,
    };
    expect(strategyTerms(strategy, 18)).toEqual({
      ok: true,
      terms: { total: (3n * E18) / 10n, slippagePercent: '1' },
    });
    const reason = (over: Partial<typeof strategy>, decimals = 18) => {
      const read = strategyTerms({ ...strategy, ...over }, decimals);
      return read.ok ? 'ok' : read.reason;
    };
    expect(reason({ totalAmount: 1e308 })).toBe('INVALID_AMOUNT');
    expect(reason({ totalAmount: 1e-7 }, 6)).toBe('INVALID_AMOUNT');
    expect(reason({ totalAmount: Number.NaN })).toBe('INVALID_AMOUNT');
    expect(reason({ totalAmount: -1 })).toBe('INVALID_AMOUNT');
    expect(reason({ iterations: 0 })).toBe('INVALID_SCHEDULE');
    expect(reason({ iterations: 2.5 })).toBe('INVALID_SCHEDULE');
    expect(reason({ frequency: -5 })).toBe('INVALID_SCHEDULE');
    expect(reason({ frequency: Number.NaN })).toBe('INVALID_SCHEDULE');
    expect(reason({ slippage: 150 })).toBe('INVALID_SLIPPAGE');
    expect(reason({ slippage: Number.NaN })).toBe('INVALID_SLIPPAGE');
  });
});

describe('pair signature (EIP-712, checked off-chain as the contract does)', () => {
  const maker = Wallet.createRandom();
  const orderExecutor = getAddress('0x5fbdb2315678afecb367f032d93f642f64180aa3');
  const tokenIn = getAddress('0xc6d0629b4babb1fe5646a729bbdd2cf3677970bb');
  const tokenOut = getAddress('0xe2a08e0947c2974423f62417d8b8c7440ef2b497');
  const API_KEY = '3f1c7f0e-5d8a-4c47-9a59-1f4b8f7c2d10';
  const OTHER_KEY = '9b2e4d61-0c3f-4e8b-8d7a-6a5f4e3d2c1b';
  /** The contract's fee cap when the maker signs. */
  const FEE_BPS = 100;
  const sign = (
    signer: Pick<Wallet, 'signTypedData'>,
    a: string,
    b: string,
    over: {
      chainId?: number;
      apiKey?: string;
      maxDeviationBps?: number;
      maxFeeBps?: number;
      maker?: string;
    } = {},
  ) =>
    signer.signTypedData(
      { ...PAIR_AUTHORIZATION_DOMAIN, chainId: over.chainId ?? 1, verifyingContract: orderExecutor },
      PAIR_AUTHORIZATION_TYPES,
      {
        maker: over.maker ?? maker.address,
        tokenIn: a,
        tokenOut: b,
        integrator: integratorOf(over.apiKey ?? API_KEY),
        maxDeviationBps: over.maxDeviationBps ?? DEFAULT_MAX_DEVIATION_BPS,
        maxFeeBps: over.maxFeeBps ?? FEE_BPS,
      },
    );
  /** The authorization an order of API_KEY carries for the maker's pair (the signature aside). */
  const authOf = (m = maker.address) => ({
    chainId: 1,
    orderExecutor,
    maker: m,
    tokenIn,
    tokenOut,
    integrator: integratorOf(API_KEY),
    maxDeviationBps: DEFAULT_MAX_DEVIATION_BPS,
    maxFeeBps: FEE_BPS,
  });

  /** A chain reader that must not be asked (an EOA's answer is ECDSA alone), or one that answers '0x' code. */
  const eoaChain = (): SignatureChainReader & { asked: string[] } => {
    const asked: string[] = [];
    return {
      asked,
      getCode: async (address) => {
        asked.push(`getCode ${address}`);
        return '0x';
      },
      call: async (tx) => {
        asked.push(`call ${tx.to}`);
        throw new Error('an EOA is never called');
      },
    };
  };

  it('binds the integrator to the key id: keccak256 of its UTF-8 bytes, one per key', () => {
    expect(integratorOf(API_KEY)).toMatch(/^0x[0-9a-f]{64}$/);
    expect(integratorOf(API_KEY)).not.toBe(integratorOf(OTHER_KEY));
    expect(orderRefOf('order-1')).not.toBe(orderRefOf('order-2'));
  });

  it('accepts the maker signature of the pair and refuses any other', async () => {
    const auth = authOf();
    expect(isValidPairSignature({ ...auth, signature: await sign(maker, tokenIn, tokenOut) })).toBe(true);
    // The reversed pair, another chain, another signer, garbage: all refused.
    expect(isValidPairSignature({ ...auth, signature: await sign(maker, tokenOut, tokenIn) })).toBe(false);
    expect(
      isValidPairSignature({ ...auth, signature: await sign(maker, tokenIn, tokenOut, { chainId: 137 }) }),
    ).toBe(false);
    expect(
      isValidPairSignature({ ...auth, signature: await sign(Wallet.createRandom(), tokenIn, tokenOut) }),
    ).toBe(false);
    expect(isValidPairSignature({ ...auth, signature: `0x${'11'.repeat(65)}` })).toBe(false);
  });

  it('refuses a signature granted to another integrator (API key) or with another deviation or fee cap', async () => {
    const auth = authOf();
    const forOtherKey = await sign(maker, tokenIn, tokenOut, { apiKey: OTHER_KEY });
    // An order of API_KEY carrying the maker's grant to OTHER_KEY: refused, whatever else matches.
    expect(isValidPairSignature({ ...auth, signature: forOtherKey })).toBe(false);
    // The same signature is valid for the key it was granted to.
    expect(
      isValidPairSignature({ ...auth, integrator: integratorOf(OTHER_KEY), signature: forOtherKey }),
    ).toBe(true);
    // maxDeviationBps is signed too: another bound than the one signed is another authorization.
    const tighter = await sign(maker, tokenIn, tokenOut, { maxDeviationBps: 50 });
    expect(isValidPairSignature({ ...auth, signature: tighter })).toBe(false);
    expect(isValidPairSignature({ ...auth, maxDeviationBps: 50, signature: tighter })).toBe(true);
    // So is the fee cap: a signature for 100 bps is no authorization for 300, nor for 30.
    expect(
      isValidPairSignature({ ...auth, maxFeeBps: 300, signature: await sign(maker, tokenIn, tokenOut) }),
    ).toBe(false);
    expect(
      isValidPairSignature({ ...auth, maxFeeBps: 30, signature: await sign(maker, tokenIn, tokenOut) }),
    ).toBe(false);
    const at30 = await sign(maker, tokenIn, tokenOut, { maxFeeBps: 30 });
    expect(isValidPairSignature({ ...auth, maxFeeBps: 30, signature: at30 })).toBe(true);
    // The full check agrees, and asks an EOA maker's chain only for its code.
    const chain = eoaChain();
    expect(await isValidMakerSignature({ ...auth, signature: forOtherKey }, chain)).toBe(false);
    expect(await new PairSignatureVerifier().isValid({ ...auth, signature: forOtherKey }, chain)).toBe(false);
    expect(chain.asked).toEqual([`getCode ${maker.address}`, `getCode ${maker.address}`]);
  });

  it('remembers answers per maker, pair, chain, integrator and signature, never one for another, within its capacity', async () => {
    const auth = authOf();
    const good = await sign(maker, tokenIn, tokenOut);
    const reversed = await sign(maker, tokenOut, tokenIn);
    const verifier = new PairSignatureVerifier(2);
    const chain = eoaChain();
    for (let round = 0; round < 2; round++) {
      expect(await verifier.isValid({ ...auth, signature: good }, chain)).toBe(true);
      expect(
        await verifier.isValid({ ...auth, signature: good.toUpperCase().replace('0X', '0x') }, chain),
      ).toBe(true);
      expect(await verifier.isValid({ ...auth, signature: reversed }, chain)).toBe(false);
      expect(
        await verifier.isValid({ ...auth, tokenIn: tokenOut, tokenOut: tokenIn, signature: reversed }, chain),
      ).toBe(true);
      expect(await verifier.isValid({ ...auth, chainId: 137, signature: good }, chain)).toBe(false);
      expect(
        await verifier.isValid({ ...auth, integrator: integratorOf(OTHER_KEY), signature: good }, chain),
      ).toBe(false);
      expect(await verifier.isValid({ ...auth, maxFeeBps: FEE_BPS + 1, signature: good }, chain)).toBe(false);
    }
    // Only refusals reach the chain (a contract wallet could be the maker); ECDSA successes never do.
    expect(chain.asked.every((a) => a === `getCode ${maker.address}`)).toBe(true);
    expect(chain.asked).toHaveLength(2 * 4);
  });

  describe('a contract wallet as the maker (ERC-1271, EIP-7702)', () => {
    const owner = Wallet.createRandom();
    const wallet = getAddress('0x' + '7e'.repeat(20));
    const ERC1271 = new Interface([
      'function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)',
    ]);
    const MAGIC = '0x1626ba7e';
    const word = (bytes4: string) => AbiCoder.defaultAbiCoder().encode(['bytes4'], [bytes4]);
    const revert = () =>
      Object.assign(new Error('execution reverted'), { code: 'CALL_EXCEPTION', data: '0x' });

    /** A chain where `wallet` has code and answers isValidSignature with `answer` (or throws it). */
    function walletChain(answer: () => Promise<string>, code = '0x6080604052') {
      const calls: Array<{ to: string; data: string; gasLimit?: bigint }> = [];
      const chain: SignatureChainReader = {
        getCode: async (address) => (address.toLowerCase() === wallet.toLowerCase() ? code : '0x'),
        call: async (tx) => {
          calls.push(tx);
          return answer();
        },
      };
      return { chain, calls };
    }

    it("asks the wallet's isValidSignature for the EIP-712 digest and accepts its magic value", async () => {
      const auth = authOf(wallet);
      // The owner signs the wallet's authorization: ECDSA recovers the owner, not the maker.
      const signature = await sign(owner, tokenIn, tokenOut, { maker: wallet });
      expect(isValidPairSignature({ ...auth, signature })).toBe(false);
      const { chain, calls } = walletChain(async () => word(MAGIC));
      expect(await isValidMakerSignature({ ...auth, signature }, chain)).toBe(true);
      expect(calls).toHaveLength(1);
      expect(calls[0]!.to).toBe(wallet);
      expect(calls[0]!.gasLimit).toBe(50_000n);
      const [hash, sent] = ERC1271.decodeFunctionData('isValidSignature', calls[0]!.data);
      expect(hash).toBe(pairAuthorizationDigest(auth));
      expect(sent).toBe(signature);
    });

    it('refuses a wallet that reverts, answers anything but the magic value, or has no code', async () => {
      const auth = { ...authOf(wallet), signature: await sign(owner, tokenIn, tokenOut, { maker: wallet }) };
      const reverting = walletChain(async () => {
        throw revert();
      });
      expect(await isValidMakerSignature(auth, reverting.chain)).toBe(false);
      expect(reverting.calls).toHaveLength(1);
      for (const answer of [word('0xffffffff'), '0x', MAGIC, `0x${'00'.repeat(32)}`]) {
        expect({
          answer,
          valid: await isValidMakerSignature(auth, walletChain(async () => answer).chain),
        }).toEqual({ answer, valid: false });
      }
      // No code: an EOA whose ECDSA check failed; the wallet is never called.
      const noCode = walletChain(async () => word(MAGIC), '0x');
      expect(await isValidMakerSignature(auth, noCode.chain)).toBe(false);
      expect(noCode.calls).toEqual([]);
      // Not even hex: refused before the chain is asked.
      const notHex = walletChain(async () => word(MAGIC));
      expect(await isValidMakerSignature({ ...auth, signature: 'nope' }, notHex.chain)).toBe(false);
      expect(notHex.calls).toEqual([]);
    });

    it('throws when the chain cannot be read: an outage is not a refusal', async () => {
      const auth = { ...authOf(wallet), signature: await sign(owner, tokenIn, tokenOut, { maker: wallet }) };
      const down = walletChain(async () => {
        throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'NETWORK_ERROR' });
      });
      await expect(isValidMakerSignature(auth, down.chain)).rejects.toThrow('ECONNREFUSED');
      await expect(new PairSignatureVerifier().isValid(auth, down.chain)).rejects.toThrow('ECONNREFUSED');
    });

    it("never remembers a wallet's answer: it is asked again, and may change its mind", async () => {
      const auth = { ...authOf(wallet), signature: await sign(owner, tokenIn, tokenOut, { maker: wallet }) };
      let accepts = true;
      const { chain, calls } = walletChain(async () => {
        if (accepts) return word(MAGIC);
        throw revert();
      });
      const verifier = new PairSignatureVerifier();
      expect(await verifier.isValid(auth, chain)).toBe(true);
      expect(await verifier.isValid(auth, chain)).toBe(true);
      accepts = false;
      expect(await verifier.isValid(auth, chain)).toBe(false);
      expect(calls).toHaveLength(3);
    });
  });
});

describe('funding: balance and allowance over the maker’s open orders of the token', () => {
  const MAKER = getAddress('0x' + 'a1'.repeat(20));
  const OTHER = getAddress('0x' + 'b2'.repeat(20));
  const WETH = '0x' + 'c3'.repeat(20);
  const order = (id: string, maker: string, amountIn: bigint): ExecutionOrder => ({
    kind: 'limit',
    id,
    onchainId: id,
    executionIndex: 1n,
    ref: orderRefOf(id),
    integrator: integratorOf('funding-key'),
    version: 0,
    attemptNumber: 0,
    chainId: 1,
    maker,
    tokenIn: WETH,
    tokenOut: '0x' + 'd4'.repeat(20),
    decimalsIn: 18,
    decimalsOut: 6,
    amountIn,
    signature: '0x',
    maxFeeBps: null,
    minAmountOut: 0n,
    priceTrigger: '3000',
    triggerBlock: 1,
  });
  const funding = (balance: bigint, allowance: bigint) =>
    new Map([[fundingKey(MAKER, WETH), { balance, allowance }]]);
  const ids = (v: FundingVerdict) => ({
    funded: v.funded.map((f) => f.order.id),
    short: v.short.map((f) => `${f.order.id}:${f.reason}`),
    waiting: v.waiting.map((o) => o.id),
  });

  it('sums amount + fee over the batch, oldest claim first, and holds back only the orders left uncovered', () => {
    const orders = [order('a', MAKER, E18), order('b', MAKER, E18), order('c', MAKER, E18)].map((o) => ({
      order: o,
      fee: E18 / 100n,
    }));
    const allowanceShort = judgeFunding(orders, funding(10n * E18, 2n * E18 + E18 / 50n));
    expect(ids(allowanceShort)).toEqual({
      funded: ['a', 'b'],
      short: ['c:INSUFFICIENT_ALLOWANCE'],
      waiting: [],
    });
    // What it needs (its own amount + fee over what the batch already took) and what the maker allows.
    expect(allowanceShort.short[0]).toMatchObject({
      required: 3n * E18 + (3n * E18) / 100n,
      available: 2n * E18 + E18 / 50n,
    });
    const balanceShort = judgeFunding(orders, funding(E18, 10n * E18));
    expect(ids(balanceShort)).toEqual({
      funded: [],
      short: ['a:INSUFFICIENT_BALANCE', 'b:INSUFFICIENT_BALANCE', 'c:INSUFFICIENT_BALANCE'],
      waiting: [],
    });
    expect(balanceShort.short[0]).toMatchObject({ required: E18 + E18 / 100n, available: E18 });
  });

  it('lets an order covered now but not after the maker’s in-flight pulls wait, and holds back one the state cannot cover', () => {
    const inFlight = new Map([[fundingKey(MAKER, WETH), E18]]);
    const one = [{ order: order('a', MAKER, E18), fee: 0n }];
    expect(ids(judgeFunding(one, funding(10n * E18, E18), inFlight))).toEqual({
      funded: [],
      short: [],
      waiting: ['a'],
    });
    expect(ids(judgeFunding(one, funding(10n * E18, 2n * E18), inFlight))).toEqual({
      funded: ['a'],
      short: [],
      waiting: [],
    });
    expect(ids(judgeFunding(one, funding(10n * E18, E18 - 1n), inFlight))).toEqual({
      funded: [],
      short: ['a:INSUFFICIENT_ALLOWANCE'],
      waiting: [],
    });
    // Another maker's pulls are not this maker's.
    const otherInFlight = new Map([[fundingKey(OTHER, WETH), 100n * E18]]);
    expect(ids(judgeFunding(one, funding(10n * E18, E18), otherInFlight)).funded).toEqual(['a']);
  });

  it('judges an order short of funds again after 5 s, then after half the time it has been short, at most a minute', () => {
    expect(fundingRecheckDelay(0)).toBe(5_000);
    expect(fundingRecheckDelay(8_000)).toBe(5_000);
    expect(fundingRecheckDelay(30_000)).toBe(15_000);
    expect(fundingRecheckDelay(10 * 60_000)).toBe(60_000);
  });

  it('reads the pulls of a signed batch from its calldata, per maker and sold token', () => {
    const group = (tokenIn: string, orders: Array<[string, bigint, bigint]>) => ({
      tokenIn: getAddress(tokenIn),
      tokenOut: getAddress('0x' + 'd4'.repeat(20)),
      paths: [],
      orders: orders.map(([maker, amountIn, fee], i) => ({
        ref: orderRefOf(`order-${i + 1}`),
        index: BigInt(i + 1),
        integrator: integratorOf('funding-key'),
        maker,
        amountIn,
        fee,
        minAmountOut: 1n,
        signature: '0x' + '11'.repeat(65),
        maxFeeBps: 500,
      })),
    });
    const data = encodeExecuteBatch(
      [
        group(WETH, [
          [MAKER, 5n, 1n],
          [OTHER, 7n, 0n],
          [MAKER, 10n, 2n],
        ]),
        group('0x' + 'e5'.repeat(20), [[MAKER, 3n, 0n]]),
      ],
      1n,
    );
    expect(batchPulls(data)).toEqual(
      new Map([
        [fundingKey(MAKER, WETH), 18n],
        [fundingKey(OTHER, WETH), 7n],
        [fundingKey(MAKER, '0x' + 'e5'.repeat(20)), 3n],
      ]),
    );
    // The fee each order was charged and the cap it signed, in basis points (rounded up), by reference.
    expect(batchOrderFees(data).get(orderRefOf('order-3').toLowerCase())).toEqual({
      feeBps: 2000,
      maxFeeBps: 500,
    });
    expect(batchOrderFees(data).get(orderRefOf('order-2').toLowerCase())).toEqual({
      feeBps: 0,
      maxFeeBps: 500,
    });
  });
});
