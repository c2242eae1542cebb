import type { CallRequest, ChainClient } from '../../shared/chain/chain-client';
import { ChainRegistry } from '../../shared/chain/chain-registry';
import { orderExecutorInterface, priceOracleInterface } from '../../shared/chain/contract-interfaces';
import { RpcUnavailableError } from '../../shared/chain/rpc-errors';
import type { ChainConfig } from '../../shared/config/config-schema';
import type { TransferToken } from '../../shared/bridges/cross-chain-provider';
import { TransferPricing } from '../../shared/bridges/transfer-pricing';
import type { PriceListToken } from '../../shared/routing/prices/usd-prices';
import { deviationBps, FillValuation } from '../../keeper/relay/fill-valuation';
import { ReferencePrices, REFERENCE_PRICE_TTL_MS } from '../../keeper/relay/reference-prices';

/**
 * The relayer's valuation of a fill: the input at the pools' latest state (TransferPricing's conversion, faked
 * here as a table of spot USD prices) against the chains' PriceOracles (the real ReferencePrices over a chain
 * that answers only the OrderExecutor's and the oracle's views).
 */

const Q128 = 1n << 128n;
const USD = 1_000_000n;

const addr = (n: number): string => `0x${n.toString(16).padStart(40, '0')}`;
const chain = (chainId: number, nativeSymbol: string, wrappedNative: string): ChainConfig => ({
  chainId,
  name: `chain ${chainId}`,
  rpcUrls: [],
  nativeSymbol,
  nativeDecimals: 18,
  wrappedNative,
  crossChainSource: true,
});

const LISTED: Record<number, PriceListToken[]> = {
  1: [
    { address: addr(0x11), symbol: 'USDC', decimals: 6 },
    { address: addr(0x12), symbol: 'LINK', decimals: 18 },
    { address: addr(0x13), symbol: 'WETH', decimals: 18 },
  ],
  137: [
    { address: addr(0x21), symbol: 'USDC', decimals: 6 },
    { address: addr(0x22), symbol: 'WPOL', decimals: 18 },
    { address: addr(0x23), symbol: 'LINK', decimals: 18 },
  ],
};
const EXECUTOR: Record<number, string> = { 1: addr(0xe1), 137: addr(0xe2) };
const ORACLE: Record<number, string> = { 1: addr(0x01), 137: addr(0x02) };

const tokenOf = (chainId: number, symbol: string): TransferToken => {
  const t = LISTED[chainId]!.find((l) => l.symbol === symbol)!;
  return { chainId, address: t.address, symbol: t.symbol, decimals: t.decimals, native: false };
};
const byAddress = (address: string): TransferToken => {
  for (const chainId of [1, 137]) {
    const t = LISTED[chainId]!.find((l) => l.address.toLowerCase() === address.toLowerCase());
    if (t) return tokenOf(chainId, t.symbol);
  }
  throw new Error(`unknown token ${address}`);
};

/** A chain with no node: the OrderExecutor's priceOracle() and the oracle's priceBound(), from USD prices. */
class OracleChain {
  /** Micro-dollars per whole token, by symbol; absent: the oracle has no price (0). */
  usd: Record<string, bigint> = {};
  reverts = false;
  outage = false;
  readonly priceCalls: string[] = [];

  constructor(readonly chainId: number) {}

  client(): ChainClient {
    const fake = { chainId: this.chainId, call: (tx: CallRequest) => this.call(tx) };
    return fake as unknown as ChainClient;
  }

  private async call(tx: CallRequest): Promise<string> {
    if (this.outage)
      throw new RpcUnavailableError(this.chainId, 'eth_call', 3, new Error('connection refused'));
    const to = tx.to.toLowerCase();
    if (to === EXECUTOR[this.chainId]) {
      return orderExecutorInterface().encodeFunctionResult('priceOracle', [ORACLE[this.chainId]]);
    }
    if (to !== ORACLE[this.chainId]) throw new Error(`call to ${tx.to}`);
    if (this.reverts) throw Object.assign(new Error('execution reverted'), { code: 'CALL_EXCEPTION' });
    const oracle = priceOracleInterface();
    const [tokenIn, tokenOut] = oracle.decodeFunctionData('priceBound', tx.data) as unknown as [
      string,
      string,
    ];
    this.priceCalls.push(`${byAddress(tokenIn).symbol}/${byAddress(tokenOut).symbol}`);
    const a = byAddress(tokenIn);
    const b = byAddress(tokenOut);
    const usdA = this.usd[a.symbol];
    const usdB = this.usd[b.symbol];
    // Rounded up, so that whole prices convert to whole amounts (the real oracle's Q128 figures are rounded too).
    const num = Q128 * (usdA ?? 0n) * 10n ** BigInt(b.decimals);
    const den = (usdB ?? 0n) * 10n ** BigInt(a.decimals);
    const price = usdA && usdB ? (num + den - 1n) / den : 0n;
    return oracle.encodeFunctionResult('priceBound', [price]);
  }
}

const chains = new ChainRegistry([chain(1, 'ETH', addr(0x13)), chain(137, 'POL', addr(0x22))]);
const tokensOf = (chainId: number) => LISTED[chainId] ?? [];

describe('the relayer fill valuation', () => {
  let now: number;
  let oracles: Record<number, OracleChain>;
  /** Micro-dollars per whole token at the pools' latest state, by chain and symbol. */
  let spotUsd: Record<number, Record<string, bigint>>;
  let reference: ReferencePrices;
  let valuation: FillValuation;

  beforeEach(() => {
    now = 1_800_000_000_000;
    oracles = { 1: new OracleChain(1), 137: new OracleChain(137) };
    for (const o of Object.values(oracles)) o.usd = { USDC: USD, LINK: 15n * USD, WPOL: USD / 2n };
    spotUsd = { 1: { USDC: USD, LINK: 15n * USD }, 137: { USDC: USD, WPOL: USD / 2n, LINK: 15n * USD } };
    const real = new TransferPricing({ chains, tokensOf });
    // The pools' latest state: what the quote engine would pay, without price impact.
    const spot = {
      sameAsset: (a: TransferToken, b: TransferToken) => real.sameAsset(a, b),
      referenceStable: (chainId: number) => real.referenceStable(chainId),
      nativeCostIn: (chainId: number, wei: bigint, t: TransferToken) => real.nativeCostIn(chainId, wei, t),
      convert: (amount: bigint, from: TransferToken, to: TransferToken): bigint | undefined => {
        if (real.sameAsset(from, to)) return real.convert(amount, from, to);
        const usdFrom = spotUsd[from.chainId]?.[from.symbol];
        const usdTo = spotUsd[to.chainId]?.[to.symbol];
        if (usdFrom === undefined || usdTo === undefined) return undefined;
        return (amount * usdFrom * 10n ** BigInt(to.decimals)) / (usdTo * 10n ** BigInt(from.decimals));
      },
    };
    reference = new ReferencePrices({
      clients: { find: (chainId) => oracles[chainId]?.client() },
      orderExecutorOf: (chainId) => EXECUTOR[chainId],
      pricing: real,
      now: () => now,
    });
    valuation = new FillValuation(spot, () => undefined, reference, { maxDeviationBps: 200 });
  });

  const LINK_1 = () => tokenOf(1, 'LINK');
  const USDC_1 = () => tokenOf(1, 'USDC');
  const USDC_137 = () => tokenOf(137, 'USDC');

  it('refuses a deposit priced off a pumped pool: the input is worth 4× at spot what the oracle says', async () => {
    spotUsd[1]!.LINK = 60n * USD;
    const result = await valuation.value(LINK_1(), 1_000n * 10n ** 18n, USDC_137(), 57_763n * USD, 0n);
    expect(result).toEqual({
      kind: 'price-deviation',
      spotInOutput: 60_000n * USD,
      referenceInOutput: 15_000n * USD,
      deviationBps: 30_000,
    });
  });

  it('values a fair fill at the lower of spot and reference, and counts the margin on it', async () => {
    // Spot 1.5% above the oracle: within 200 bps, but the relayer is paid at the oracle's value.
    spotUsd[1]!.LINK = 15_225_000n;
    const up = await valuation.value(LINK_1(), 100n * 10n ** 18n, USDC_137(), 1_490n * USD, 0n);
    expect(up).toEqual({
      kind: 'value',
      value: {
        inputInOutput: 1_500n * USD,
        spotInOutput: 1_522_500_000n,
        referenceInOutput: 1_500n * USD,
        gasInOutput: 0n,
        profit: 10n * USD,
        profitBps: 66,
      },
    });
    // Spot 1.5% below it: the pools' price is what selling the input would fetch.
    spotUsd[1]!.LINK = 14_775_000n;
    const down = await valuation.value(LINK_1(), 100n * 10n ** 18n, USDC_137(), 1_490n * USD, 0n);
    expect(down.kind === 'value' && down.value.inputInOutput).toBe(1_477_500_000n);
    expect(down.kind === 'value' && down.value.profit).toBe(-12_500_000n);
  });

  it('holds the bound exactly: 200 bps apart is filled, 201 is not', async () => {
    spotUsd[1]!.LINK = 15_300_000n;
    expect((await valuation.value(LINK_1(), 10n ** 18n, USDC_137(), 0n, 0n)).kind).toBe('value');
    spotUsd[1]!.LINK = 15_301_500n;
    expect(await valuation.value(LINK_1(), 10n ** 18n, USDC_137(), 0n, 0n)).toMatchObject({
      kind: 'price-deviation',
      deviationBps: 201,
    });
  });

  it('carries the dollars across chains and into a non-stable output at the oracle prices', async () => {
    const wpol = tokenOf(137, 'WPOL');
    const result = await valuation.value(LINK_1(), 10n ** 18n, wpol, 0n, 0n);
    expect(result.kind === 'value' && result.value.referenceInOutput).toBe(30n * 10n ** 18n);
    expect(oracles[1]!.priceCalls).toEqual(['LINK/USDC']);
    expect(oracles[137]!.priceCalls).toEqual(['USDC/WPOL']);
  });

  it('converts one asset to itself exactly, reading no oracle', async () => {
    const result = await valuation.value(USDC_1(), 250n * USD, USDC_137(), 249n * USD, 0n);
    expect(result).toMatchObject({ kind: 'value', value: { inputInOutput: 250n * USD, profit: USD } });
    expect(oracles[1]!.priceCalls).toEqual([]);
    expect(oracles[137]!.priceCalls).toEqual([]);
  });

  it('has no value without a reference price: none set (0), a reverting oracle, or no spot price', async () => {
    delete oracles[1]!.usd.LINK;
    expect(await valuation.value(LINK_1(), 10n ** 18n, USDC_137(), 0n, 0n)).toEqual({
      kind: 'no-reference-price',
    });
    oracles[1]!.usd.LINK = 15n * USD;
    oracles[1]!.reverts = true;
    now += REFERENCE_PRICE_TTL_MS;
    expect(await valuation.value(LINK_1(), 10n ** 18n, USDC_137(), 0n, 0n)).toEqual({
      kind: 'no-reference-price',
    });
    delete spotUsd[1]!.LINK;
    expect(await valuation.value(LINK_1(), 10n ** 18n, USDC_137(), 0n, 0n)).toEqual({
      kind: 'no-spot-price',
    });
  });

  it('throws an RPC outage instead of judging the fill, and reads again once the chain is back', async () => {
    oracles[1]!.outage = true;
    await expect(valuation.value(LINK_1(), 10n ** 18n, USDC_137(), 0n, 0n)).rejects.toThrow(
      RpcUnavailableError,
    );
    oracles[1]!.outage = false;
    expect((await valuation.value(LINK_1(), 10n ** 18n, USDC_137(), 0n, 0n)).kind).toBe('value');
  });

  it('reads each pair once per couple of seconds, however many fills a tick values', async () => {
    for (let i = 0; i < 5; i++)
      await valuation.value(LINK_1(), BigInt(i + 1) * 10n ** 18n, USDC_137(), 0n, 0n);
    expect(oracles[1]!.priceCalls).toEqual(['LINK/USDC']);
    now += REFERENCE_PRICE_TTL_MS;
    await valuation.value(LINK_1(), 10n ** 18n, USDC_137(), 0n, 0n);
    expect(oracles[1]!.priceCalls).toEqual(['LINK/USDC', 'LINK/USDC']);
  });

  it('values an output in USD: the stable exactly, another token at the larger of spot and reference', async () => {
    expect(await valuation.usdValue(USDC_137(), 1_234_567n)).toBe(1_234_567n);
    const link = tokenOf(137, 'LINK');
    spotUsd[137]!.LINK = 14n * USD;
    expect(await valuation.usdValue(link, 2n * 10n ** 18n)).toBe(30n * USD);
    spotUsd[137]!.LINK = 16n * USD;
    expect(await valuation.usdValue(link, 2n * 10n ** 18n)).toBe(32n * USD);
    delete oracles[137]!.usd.LINK;
    now += REFERENCE_PRICE_TTL_MS;
    expect(await valuation.usdValue(link, 2n * 10n ** 18n)).toBe(32n * USD);
    delete spotUsd[137]!.LINK;
    expect(await valuation.usdValue(link, 2n * 10n ** 18n)).toBeUndefined();
  });
});

describe('deviationBps', () => {
  it('is the gap in basis points of the reference, rounded up', () => {
    expect(deviationBps(10_000n, 10_000n)).toBe(0);
    expect(deviationBps(10_201n, 10_000n)).toBe(201);
    expect(deviationBps(9_799n, 10_000n)).toBe(201);
    expect(deviationBps(1_000_001n, 1_000_000n)).toBe(1);
    expect(deviationBps(0n, 0n)).toBe(0);
    expect(deviationBps(1n, 0n)).toBe(Number.POSITIVE_INFINITY);
  });
});
