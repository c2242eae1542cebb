import { Contract, getAddress } from 'ethers';
import type { ManifestChain } from '../../devnet/manifest';
import type { RunningDevnet } from '../../devnet/start-devnet';
import { V2_ROUTER_ABI, V3_QUOTER_V2_ABI } from '../../devnet/world/abis';
import type { ApiClient, ApiResponse, Envelope } from '../helpers/api-client';
import { startDevnetApi, waitUntilQuotesAvailable, type DevnetApi } from '../helpers/devnet-api';

/** POST /quotes single-chain through the real HTTP API, against a devnet chain with the fixture world. */

jest.setTimeout(180_000);

interface Quote {
  outAmount: string;
  estimatedGas: string;
  aggregatorId: string;
  aggregatorOrder: string[];
  market: unknown[];
  routes: {
    percentage: number;
    subRoutes: { from: string; to: string; dexes: { name: string; percentage: number }[] }[];
  }[];
  gasMultiplier: string;
  integratorFeeBreakdown: {
    protocolFeeBps: number;
    integratorMarginBps: number;
    protocolFeeAmount: string;
    integratorMarginAmount: string;
  };
}
interface QuoteData {
  mode: string;
  quote: Quote;
}

/** The chain's seven single-chain aggregatorIds (README "Liquidity sources"). */
const SOURCE_IDS = [
  'uniswap-v2',
  'uniswap-v3',
  'sushiswap-v2',
  'uniswap-v4',
  'balancer-v2',
  'stableswap',
  'tas-smart',
];
/** excludeMetaAggregatorId asking one source alone. */
const allBut = (id: string): string[] => SOURCE_IDS.filter((s) => s !== id);
const CHAIN_ID = 1;
const NATIVE_CHECKSUM = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';
const NATIVE_LOWER = NATIVE_CHECKSUM.toLowerCase();
const FEE_RECIPIENT = '0x000000000000000000000000000000000000dEaD';
const E18 = 10n ** 18n;

/** The EIP-55 form with the case of its first letter flipped: mixed case with a wrong checksum. */
function wrongChecksum(address: string): string {
  const checksummed = getAddress(address);
  const i = checksummed.slice(2).search(/[a-fA-F]/) + 2;
  const c = checksummed[i]!;
  const flipped = c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase();
  return `${checksummed.slice(0, i)}${flipped}${checksummed.slice(i + 1)}`;
}

describe('POST /quotes (single-chain)', () => {
  let api: DevnetApi;
  let devnet: RunningDevnet;
  let manifest: ManifestChain;
  let client: ApiClient;
  let weth: string;
  let usdc: string;

  const params = (over: Record<string, unknown> = {}) => ({
    chainId: CHAIN_ID,
    inTokenAddress: weth,
    outTokenAddress: usdc,
    amount: '1',
    gasPrice: '30',
    slippage: '0.5',
    ...over,
  });
  const quote = (body: unknown): Promise<ApiResponse<Envelope<QuoteData>>> =>
    client.post<QuoteData>('/quotes', body);
  const single = (over: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
    quote({ mode: 'single-chain', params: params(over), ...extra });

  /** Router02.getAmountsOut: the V2 contracts' own answer for a direct route. */
  async function v2AmountsOut(amountIn: bigint, pathTokens: string[]): Promise<bigint> {
    const router = new Contract(
      manifest.contracts.uniswapV2Router02,
      V2_ROUTER_ABI,
      devnet.handles[0]!.provider,
    );
    const amounts = (await router.getFunction('getAmountsOut').staticCall(amountIn, pathTokens)) as bigint[];
    return amounts[amounts.length - 1]!;
  }

  function expectError(res: ApiResponse<Envelope>, status: number, code: string): void {
    expect(res.status).toBe(status);
    expect(res.body.success).toBe(false);
    expect(res.body.error?.code).toBe(code);
  }

  beforeAll(async () => {
    api = await startDevnetApi(CHAIN_ID, 'tas-quotes-');
    ({ devnet, manifest, client } = api);
    weth = manifest.contracts.weth;
    usdc = manifest.tokens.find((t) => t.symbol === 'USDC')!.address;
    await waitUntilQuotesAvailable(() => single());
  });

  afterAll(async () => {
    await api?.close();
  });

  it('quotes WETH to USDC over every source, best first, with the aggregated router among them', async () => {
    const res = await single();
    expect(res.status).toBe(200);
    const { mode, quote: q } = res.body.data!;
    expect(mode).toBe('single-chain');
    expect(q.aggregatorOrder[0]).toBe(q.aggregatorId);
    expect([...q.aggregatorOrder].sort()).toEqual([
      'sushiswap-v2',
      'tas-smart',
      'uniswap-v2',
      'uniswap-v3',
      'uniswap-v4',
    ]);
    expect(q.market).toEqual([]);
    expect(q.gasMultiplier).toBe('NONE');
    expect(BigInt(q.outAmount)).toBeGreaterThan((2_900n * 10n ** 6n * 99n) / 100n);
    expect(BigInt(q.estimatedGas)).toBeGreaterThan(0n);
    const total = q.routes.reduce((a, r) => a + r.percentage, 0);
    expect(total).toBeCloseTo(100, 1);
    for (const route of q.routes) {
      expect(route.subRoutes[0]!.from).toBe(weth);
      expect(route.subRoutes[route.subRoutes.length - 1]!.to).toBe(usdc);
      for (const sub of route.subRoutes)
        expect(['Uniswap V2', 'Uniswap V3', 'SushiSwap V2', 'Uniswap V4']).toContain(sub.dexes[0]!.name);
    }
    expect(q.integratorFeeBreakdown.protocolFeeBps).toBe(15);
    expect(q.integratorFeeBreakdown.integratorMarginBps).toBe(0);
    expect(q.integratorFeeBreakdown.integratorMarginAmount).toBe('0');
  });

  it('matches Router02.getAmountsOut to the unit on a V2-only quote, with exact fees', async () => {
    const amountIn = E18 / 10n;
    const res = await single(
      { amount: '0.1', excludeMetaAggregatorId: allBut('uniswap-v2') },
      { fees: { feeBps: 25, feeRecipient: FEE_RECIPIENT } },
    );
    expect(res.status).toBe(200);
    const q = res.body.data!.quote;
    expect(q.aggregatorId).toBe('uniswap-v2');
    expect(q.aggregatorOrder).toEqual(['uniswap-v2']);
    expect(q.routes).toEqual([
      {
        percentage: 100,
        subRoutes: [{ from: weth, to: usdc, dexes: [{ name: 'Uniswap V2', percentage: 100 }] }],
      },
    ]);
    expect(q.estimatedGas).toBe('60000');
    const gross = await v2AmountsOut(amountIn, [weth, usdc]);
    const protocolFee = (gross * 1500n) / 1_000_000n;
    const margin = (gross * 25n) / 10_000n;
    expect(q.integratorFeeBreakdown).toEqual({
      protocolFeeBps: 15,
      integratorMarginBps: 25,
      protocolFeeAmount: protocolFee.toString(),
      integratorMarginAmount: margin.toString(),
    });
    expect(q.outAmount).toBe((gross - protocolFee - margin).toString());
  });

  it('matches QuoterV2 to the unit on a V3-only quote', async () => {
    const amountIn = E18 / 100n;
    const res = await single({ amount: '0.01', excludeMetaAggregatorId: allBut('uniswap-v3') });
    expect(res.status).toBe(200);
    const q = res.body.data!.quote;
    expect(q.aggregatorOrder).toEqual(['uniswap-v3']);
    expect(q.routes).toHaveLength(1);
    const quoter = new Contract(
      manifest.contracts.uniswapV3QuoterV2,
      V3_QUOTER_V2_ABI,
      devnet.handles[0]!.provider,
    );
    // The 0.05% tier pays most for a small amount.
    const [gross] = (await quoter.getFunction('quoteExactInputSingle').staticCall({
      tokenIn: weth,
      tokenOut: usdc,
      amountIn,
      fee: 500,
      sqrtPriceLimitX96: 0n,
    })) as [bigint];
    const protocolFee = (gross * 1500n) / 1_000_000n;
    expect(q.integratorFeeBreakdown.protocolFeeAmount).toBe(protocolFee.toString());
    expect(q.outAmount).toBe((gross - protocolFee).toString());
  });

  it('quotes the native coin as the wrapped token, in either casing', async () => {
    const viaWeth = (await single({ amount: '0.5' })).body.data!.quote;
    for (const native of [NATIVE_CHECKSUM, NATIVE_LOWER]) {
      const res = await single({ amount: '0.5', inTokenAddress: native });
      expect(res.status).toBe(200);
      const q = res.body.data!.quote;
      expect(q.outAmount).toBe(viaWeth.outAmount);
      expect(q.aggregatorId).toBe(viaWeth.aggregatorId);
      expect(q.routes[0]!.subRoutes[0]!.from).toBe(native);
    }
  });

  it('leaves out the sources named in excludeMetaAggregatorId', async () => {
    const res = await single({ excludeMetaAggregatorId: ['uniswap-v2'] });
    expect(res.status).toBe(200);
    const q = res.body.data!.quote;
    expect(q.aggregatorOrder).not.toContain('uniswap-v2');
    // Every id but one: that one's quote alone.
    const alone = await single({ excludeMetaAggregatorId: allBut('uniswap-v4') });
    expect(alone.body.data!.quote.aggregatorOrder).toEqual(['uniswap-v4']);
    for (const route of alone.body.data!.quote.routes)
      for (const sub of route.subRoutes) expect(sub.dexes[0]!.name).toBe('Uniswap V4');
  });

  it('answers 422 NO_ROUTE for a pair nothing routes', async () => {
    // An unlisted token, native to its own wrapped token (no swap), and every source excluded.
    const unlisted = await single({ outTokenAddress: '0x1111111111111111111111111111111111111111' });
    expectError(unlisted, 422, 'NO_ROUTE');
    expectError(await single({ inTokenAddress: NATIVE_LOWER, outTokenAddress: weth }), 422, 'NO_ROUTE');
    expectError(await single({ excludeMetaAggregatorId: SOURCE_IDS }), 422, 'NO_ROUTE');
    // A cross-chain quote to a chain this devnet does not run is the request's fault (test/e2e/cross-chain-api.test.ts
    // quotes between two devnet chains).
    const crossChain = await quote({
      mode: 'cross-chain',
      params: {
        fromChainId: 1,
        toChainId: 137,
        inTokenAddress: usdc,
        outTokenAddress: usdc,
        amount: '1',
        slippage: '1',
      },
    });
    expectError(crossChain, 400, 'VALIDATION_ERROR');
    expect(crossChain.body.error?.details).toEqual([
      { field: 'params.toChainId', message: 'Chain 137 is not enabled' },
    ]);
  });

  it('answers 400 for invalid bodies', async () => {
    const number = await single({ amount: 1 });
    expectError(number, 400, 'VALIDATION_ERROR');
    // Exactly the single-chain errors: the body names its mode, so the cross-chain fields are not listed.
    expect(number.body.error?.details).toEqual([{ field: 'params.amount', message: 'Must be a string' }]);

    const badChecksum = await single({ inTokenAddress: wrongChecksum(weth) });
    expectError(badChecksum, 400, 'VALIDATION_ERROR');
    expect(badChecksum.body.error?.details).toEqual([
      { field: 'params.inTokenAddress', message: 'Must be a valid EVM address' },
    ]);

    const fee = await single({}, { fees: { feeBps: 101, feeRecipient: FEE_RECIPIENT } });
    expectError(fee, 400, 'VALIDATION_ERROR');
    expect(fee.body.error?.details).toEqual([{ field: 'fees.feeBps', message: 'Must be at most 100' }]);

    const decimals = await single({ inTokenAddress: usdc, outTokenAddress: weth, amount: '1.0000001' });
    expectError(decimals, 400, 'VALIDATION_ERROR');
    expect(decimals.body.error?.details).toEqual([
      { field: 'params.amount', message: 'Must have at most 6 decimal places (USDC has 6 decimals)' },
    ]);

    const disabled = await single({ chainId: 999 });
    expectError(disabled, 400, 'VALIDATION_ERROR');
    expect(disabled.body.error?.message).toBe('Chain 999 is not enabled');
  });
});
