import { Contract, Wallet, parseUnits, type JsonRpcProvider, type TransactionReceipt } from 'ethers';
import type { ManifestChain } from '../../devnet/manifest';
import { ERC20_ABI } from '../../devnet/world/abis';
import type { ApiClient, ApiResponse, Envelope } from '../helpers/api-client';
import { startDevnetApi, waitUntilQuotesAvailable, type DevnetApi } from '../helpers/devnet-api';
import { waitForReceipt } from '../../devnet/wait-for-receipt';

/**
 * The seven single-chain liquidity sources of the devnet through the public API: each is the best quote for a pair
 * class of its own; each asked alone (every other id in excludeMetaAggregatorId) quotes, and the swap POST /swap
 * builds for it executes on-chain for at least its minOutAmount; a trade that would empty the pools is refused.
 */

jest.setTimeout(300_000);

interface Quote {
  outAmount: string;
  aggregatorId: string;
  aggregatorOrder: string[];
  routes: { percentage: number; subRoutes: { from: string; to: string; dexes: { name: string }[] }[] }[];
}
interface Swap {
  data: string;
  to: string;
  value: string;
  outAmount: string;
  minOutAmount: string;
  gasLimit: string;
  contractToApprove: string;
}

const CHAIN_ID = 1;
const SOURCE_IDS = [
  'uniswap-v2',
  'uniswap-v3',
  'sushiswap-v2',
  'uniswap-v4',
  'balancer-v2',
  'stableswap',
  'tas-smart',
] as const;
type SourceId = (typeof SOURCE_IDS)[number];

interface PairClass {
  /** The source that must win it. */
  best: SourceId;
  tokenIn: string;
  tokenOut: string;
  amount: string;
  /** Dex names every route of the winning quote goes through. */
  dexes: string[];
}

/** Pair classes of the fixture world and the source each was seeded to win (devnet/world/world-spec.ts). */
const CLASSES: readonly PairClass[] = [
  { best: 'uniswap-v2', tokenIn: 'WETH', tokenOut: 'LINK', amount: '1', dexes: ['Uniswap V2'] },
  { best: 'uniswap-v3', tokenIn: 'WETH', tokenOut: 'USDC', amount: '1', dexes: ['Uniswap V3'] },
  { best: 'sushiswap-v2', tokenIn: 'SUSHI', tokenOut: 'WETH', amount: '1000', dexes: ['SushiSwap V2'] },
  { best: 'uniswap-v4', tokenIn: 'UNI', tokenOut: 'WETH', amount: '100', dexes: ['Uniswap V4'] },
  { best: 'balancer-v2', tokenIn: 'BAL', tokenOut: 'WETH', amount: '500', dexes: ['Balancer V2'] },
  { best: 'stableswap', tokenIn: 'USDC', tokenOut: 'USDT', amount: '100000', dexes: ['TAS StableSwap'] },
  {
    best: 'tas-smart',
    tokenIn: 'SUSHI',
    tokenOut: 'BAL',
    amount: '1000',
    dexes: ['SushiSwap V2', 'Balancer V2'],
  },
];

const others = (id: SourceId): string[] => SOURCE_IDS.filter((s) => s !== id);

describe('seven single-chain liquidity sources', () => {
  let api: DevnetApi;
  let manifest: ManifestChain;
  let provider: JsonRpcProvider;
  let client: ApiClient;
  let trader: Wallet;

  const token = (symbol: string): { address: string; decimals: number } => {
    const found = manifest.tokens.find((t) => t.symbol === symbol);
    if (!found) throw new Error(`no ${symbol} in the manifest`);
    return found;
  };
  const params = (pair: PairClass, over: Record<string, unknown> = {}) => ({
    chainId: CHAIN_ID,
    inTokenAddress: token(pair.tokenIn).address,
    outTokenAddress: token(pair.tokenOut).address,
    amount: pair.amount,
    gasPrice: '30',
    slippage: '0.5',
    ...over,
  });
  const quote = (body: unknown): Promise<ApiResponse<Envelope<{ mode: string; quote: Quote }>>> =>
    client.post<{ mode: string; quote: Quote }>('/quotes', body);

  async function quoteOk(body: unknown): Promise<Quote> {
    const res = await quote(body);
    if (res.status !== 200) throw new Error(`quote failed: ${res.status} ${res.text}`);
    return res.body.data!.quote;
  }

  /**
   * A quote read from a pool state that has caught up with the chain head: the api follows the chain a poll
   * behind, and the previous test's swap moved pools this one may route through.
   */
  async function settledQuote(body: unknown): Promise<Quote> {
    await api.quotesCaughtUp();
    return quoteOk(body);
  }

  async function balanceOf(tokenAddress: string, owner: string): Promise<bigint> {
    return (await new Contract(tokenAddress, ERC20_ABI, provider).getFunction('balanceOf')(owner)) as bigint;
  }

  async function send(
    wallet: Wallet,
    to: string,
    data: string,
    gasLimit?: bigint,
  ): Promise<TransactionReceipt> {
    const tx = await wallet
      .connect(provider)
      .sendTransaction({ to, data, ...(gasLimit ? { gasLimit } : {}) });
    const receipt = await waitForReceipt(provider, tx.hash);
    if (!receipt) throw new Error(`no receipt for ${tx.hash}`);
    return receipt;
  }

  beforeAll(async () => {
    api = await startDevnetApi(CHAIN_ID, 'tas-seven-sources-');
    ({ manifest, provider, client } = api);
    trader = new Wallet(manifest.accounts[3]!.privateKey);
    // The smart route crosses two new venues: once it answers, every source's pools are loaded.
    await waitUntilQuotesAvailable(() =>
      quote({ mode: 'single-chain', params: params(CLASSES.find((c) => c.best === 'tas-smart')!) }),
    );
  });

  afterAll(async () => {
    await api?.close();
  });

  it.each(CLASSES)('$best is the best quote for $amount $tokenIn -> $tokenOut', async (pair) => {
    const q = await quoteOk({ mode: 'single-chain', params: params(pair) });
    expect(q.aggregatorId).toBe(pair.best);
    expect(q.aggregatorOrder[0]).toBe(pair.best);
    expect(new Set(q.aggregatorOrder).size).toBe(q.aggregatorOrder.length);
    for (const id of q.aggregatorOrder) expect(SOURCE_IDS).toContain(id);
    const dexes = new Set(q.routes.flatMap((r) => r.subRoutes.flatMap((s) => s.dexes.map((d) => d.name))));
    expect([...dexes].sort()).toEqual([...pair.dexes].sort());
  });

  it('a 100,000 USDC -> USDT trade loses at most 0.5% after the protocol fee', async () => {
    const stable = CLASSES.find((c) => c.best === 'stableswap')!;
    const q = await quoteOk({ mode: 'single-chain', params: params(stable) });
    expect(BigInt(q.outAmount)).toBeGreaterThanOrEqual(parseUnits('99500', 6));
  });

  it.each(CLASSES)(
    '$best asked alone quotes, and its swap executes for at least minOutAmount',
    async (pair) => {
      const body = {
        mode: 'single-chain',
        params: params(pair, { excludeMetaAggregatorId: others(pair.best) }),
      };
      const q = await settledQuote(body);
      expect(q.aggregatorId).toBe(pair.best);
      expect(q.aggregatorOrder).toEqual([pair.best]);
      const res = await client.post<{ mode: string; swap: Swap }>('/swap', {
        mode: 'single-chain',
        params: { ...params(pair), account: trader.address, aggregatorId: pair.best },
      });
      if (res.status !== 200) throw new Error(`swap failed: ${res.status} ${res.text}`);
      const swap = res.body.data!.swap;
      const tokenIn = token(pair.tokenIn);
      const tokenOut = token(pair.tokenOut);
      const amountIn = parseUnits(pair.amount, tokenIn.decimals);
      await send(
        trader,
        tokenIn.address,
        new Contract(tokenIn.address, ERC20_ABI).interface.encodeFunctionData('approve', [
          swap.contractToApprove,
          amountIn,
        ]),
      );
      const [inBefore, outBefore] = await Promise.all([
        balanceOf(tokenIn.address, trader.address),
        balanceOf(tokenOut.address, trader.address),
      ]);
      const receipt = await send(trader, swap.to, swap.data, BigInt(swap.gasLimit));
      expect(receipt.status).toBe(1);
      const [inAfter, outAfter] = await Promise.all([
        balanceOf(tokenIn.address, trader.address),
        balanceOf(tokenOut.address, trader.address),
      ]);
      expect(inBefore - inAfter).toBe(amountIn);
      expect(outAfter - outBefore).toBeGreaterThanOrEqual(BigInt(swap.minOutAmount));
      // Nothing else trades on this chain: the swap pays what it was built for, to the unit.
      expect(outAfter - outBefore).toBe(BigInt(swap.outAmount));
    },
  );

  it('refuses with 422 NO_ROUTE an amount that would empty the pools', async () => {
    for (const symbol of ['WETH', 'USDC']) {
      const res = await quote({
        mode: 'single-chain',
        params: {
          ...params(CLASSES[1]!),
          inTokenAddress: token(symbol).address,
          outTokenAddress: token(symbol === 'WETH' ? 'USDC' : 'WETH').address,
          amount: '1000000000000000000000000000000',
        },
      });
      expect(res.status).toBe(422);
      expect(res.body.error?.code).toBe('NO_ROUTE');
    }
    // The same trade in a size the pools can take is quoted.
    expect((await quote({ mode: 'single-chain', params: params(CLASSES[1]!) })).status).toBe(200);
  });

  it('excludes every id, the aggregated router included', async () => {
    for (const id of SOURCE_IDS) {
      const q = await quoteOk({
        mode: 'single-chain',
        params: params(CLASSES[1]!, { excludeMetaAggregatorId: [id] }),
      });
      expect(q.aggregatorOrder).not.toContain(id);
    }
    const none = await quote({
      mode: 'single-chain',
      params: params(CLASSES[1]!, { excludeMetaAggregatorId: [...SOURCE_IDS] }),
    });
    expect(none.status).toBe(422);
    expect(none.body.error?.code).toBe('NO_ROUTE');
  });
});
