import { Wallet, getAddress } from 'ethers';
import { batchPulls, encodeExecuteBatch } from '../../keeper/plan/execute-batch-call';
import type { ExecutionOrder } from '../../keeper/plan/execution-order';
import {
  countsAsAttempt,
  decideFailure,
  FAILURE_KINDS,
  MAX_ATTEMPTS,
  OUTAGE_DELAY_MS,
} from '../../keeper/plan/failure-kinds';
import { fundingKey, judgeFunding, type FundingVerdict } from '../../keeper/plan/funding-check';
import { limitOrderMinimumOut } from '../../keeper/plan/order-amounts';
import { plainDecimalOf as decimalOf, valueAtPrice } from '../../shared/domain/amount-bounds';
import { amountTerms, limitOrderTerms, strategyTerms } from '../../keeper/plan/order-terms';
import { PAIR_AUTHORIZATION_DOMAIN, PAIR_AUTHORIZATION_TYPES } from '../../shared/domain/pair-authorization';
import { PairSignatureVerifier, isValidPairSignature } from '../../shared/domain/pair-signature';

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
  const sign = (signer: Pick<Wallet, 'signTypedData'>, a: string, b: string, chainId = 1) =>
    signer.signTypedData(
      { ...PAIR_AUTHORIZATION_DOMAIN, chainId, verifyingContract: orderExecutor },
      PAIR_AUTHORIZATION_TYPES,
      { maker: maker.address, tokenIn: a, tokenOut: b },
    );

  it('accepts the maker signature of the pair and refuses any other', async () => {
    const auth = { chainId: 1, orderExecutor, maker: maker.address, tokenIn, tokenOut };
    expect(isValidPairSignature({ ...auth, signature: await sign(maker, tokenIn, tokenOut) })).toBe(true);
    // The reversed pair, another chain, another signer, garbage: all refused.
    expect(isValidPairSignature({ ...auth, signature: await sign(maker, tokenOut, tokenIn) })).toBe(false);
    expect(isValidPairSignature({ ...auth, signature: await sign(maker, tokenIn, tokenOut, 137) })).toBe(
      false,
    );
    expect(
      isValidPairSignature({ ...auth, signature: await sign(Wallet.createRandom(), tokenIn, tokenOut) }),
    ).toBe(false);
    expect(isValidPairSignature({ ...auth, signature: `0x${'11'.repeat(65)}` })).toBe(false);
  });

  it('remembers answers per maker, pair, chain and signature, never one for another, within its capacity', async () => {
    const auth = { chainId: 1, orderExecutor, maker: maker.address, tokenIn, tokenOut };
    const good = await sign(maker, tokenIn, tokenOut);
    const reversed = await sign(maker, tokenOut, tokenIn);
    const verifier = new PairSignatureVerifier(2);
    for (let round = 0; round < 2; round++) {
      expect(verifier.isValid({ ...auth, signature: good })).toBe(true);
      expect(verifier.isValid({ ...auth, signature: good.toUpperCase().replace('0X', '0x') })).toBe(true);
      expect(verifier.isValid({ ...auth, signature: reversed })).toBe(false);
      expect(verifier.isValid({ ...auth, tokenIn: tokenOut, tokenOut: tokenIn, signature: reversed })).toBe(
        true,
      );
      expect(verifier.isValid({ ...auth, chainId: 137, signature: good })).toBe(false);
    }
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
    minAmountOut: 0n,
    priceTrigger: '3000',
    triggerBlock: 1,
  });
  const funding = (balance: bigint, allowance: bigint) =>
    new Map([[fundingKey(MAKER, WETH), { balance, allowance }]]);
  const ids = (v: FundingVerdict) => ({
    funded: v.funded.map((f) => f.order.id),
    failed: v.failed.map((f) => `${f.order.id}:${f.reason}`),
    waiting: v.waiting.map((o) => o.id),
  });

  it('sums amount + fee over the batch, oldest claim first, and fails only the orders left uncovered', () => {
    const orders = [order('a', MAKER, E18), order('b', MAKER, E18), order('c', MAKER, E18)].map((o) => ({
      order: o,
      fee: E18 / 100n,
    }));
    expect(ids(judgeFunding(orders, funding(10n * E18, 2n * E18 + E18 / 50n)))).toEqual({
      funded: ['a', 'b'],
      failed: ['c:INSUFFICIENT_ALLOWANCE'],
      waiting: [],
    });
    expect(ids(judgeFunding(orders, funding(E18, 10n * E18)))).toEqual({
      funded: [],
      failed: ['a:INSUFFICIENT_BALANCE', 'b:INSUFFICIENT_BALANCE', 'c:INSUFFICIENT_BALANCE'],
      waiting: [],
    });
  });

  it('lets an order covered now but not after the maker’s in-flight pulls wait, and fails one the state cannot cover', () => {
    const inFlight = new Map([[fundingKey(MAKER, WETH), E18]]);
    const one = [{ order: order('a', MAKER, E18), fee: 0n }];
    expect(ids(judgeFunding(one, funding(10n * E18, E18), inFlight))).toEqual({
      funded: [],
      failed: [],
      waiting: ['a'],
    });
    expect(ids(judgeFunding(one, funding(10n * E18, 2n * E18), inFlight))).toEqual({
      funded: ['a'],
      failed: [],
      waiting: [],
    });
    expect(ids(judgeFunding(one, funding(10n * E18, E18 - 1n), inFlight))).toEqual({
      funded: [],
      failed: ['a:INSUFFICIENT_ALLOWANCE'],
      waiting: [],
    });
    // Another maker's pulls are not this maker's.
    const otherInFlight = new Map([[fundingKey(OTHER, WETH), 100n * E18]]);
    expect(ids(judgeFunding(one, funding(10n * E18, E18), otherInFlight)).funded).toEqual(['a']);
  });

  it('reads the pulls of a signed batch from its calldata, per maker and sold token', () => {
    const group = (tokenIn: string, orders: Array<[string, bigint, bigint]>) => ({
      tokenIn: getAddress(tokenIn),
      tokenOut: getAddress('0x' + 'd4'.repeat(20)),
      paths: [],
      orders: orders.map(([maker, amountIn, fee], i) => ({
        onchainId: '0x' + String(i + 1).padStart(64, '0'),
        maker,
        amountIn,
        fee,
        minAmountOut: 1n,
        signature: '0x' + '11'.repeat(65),
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
  });
});
