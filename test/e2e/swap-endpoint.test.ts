import {
  Contract,
  Interface,
  Wallet,
  ZeroAddress,
  getAddress,
  parseUnits,
  type JsonRpcProvider,
  type TransactionReceipt,
} from 'ethers';
import { devnetKeys } from '../../devnet/keys';
import type { ManifestChain } from '../../devnet/manifest';
import { movePrice } from '../../devnet/market-mover';
import { ERC20_ABI, V2_FACTORY_ABI } from '../../devnet/world/abis';
import type { ApiClient, ApiResponse, Envelope } from '../helpers/api-client';
import { startDevnetApi, waitUntilQuotesAvailable, type DevnetApi } from '../helpers/devnet-api';
import { waitForReceipt } from '../../devnet/wait-for-receipt';

/**
 * POST /swap single-chain through the real HTTP API on a devnet chain: quote, swap, sign and send with a funded
 * manifest account, then check on-chain what arrived where. Only the public API and the chain are used.
 *
 * The api refreshes its pool state in the background once a new block appears, so each scenario first waits
 * until two quotes a few seconds apart agree (the state has caught up with the chain head); between that quote,
 * the swap and the transaction nothing touches the pools, so the executed amounts must equal the quoted ones to
 * the base unit.
 */

jest.setTimeout(300_000);

interface Quote {
  outAmount: string;
  estimatedGas: string;
  aggregatorId: string;
  aggregatorOrder: string[];
  routes: {
    percentage: number;
    subRoutes: { from: string; to: string; dexes: { name: string; percentage: number }[] }[];
  }[];
  integratorFeeBreakdown: {
    protocolFeeBps: number;
    integratorMarginBps: number;
    protocolFeeAmount: string;
    integratorMarginAmount: string;
  };
}
interface Swap {
  data: string;
  to: string;
  value: string;
  outAmount: string;
  minOutAmount: string;
  estimatedGas: string;
  gasLimit: string;
  contractToApprove: string;
}
interface TxStatus {
  status: string;
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
const NATIVE_LOWER = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
const NATIVE_CHECKSUM = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';
const FEE_BPS = 30;
const SLIPPAGE = '0.5';
/** The documented fallback beside the route's gas when the swap cannot be estimated from the account. */
const ROUTER_OVERHEAD_GAS = 100_000n;
const SWAP_ROUTER_ERRORS = new Interface([
  'error NotAccount()',
  'error InsufficientOutput(uint256 amountOut, uint256 minAmountOut)',
]);

const isNative = (token: string) => token.toLowerCase() === NATIVE_LOWER;

/** The EIP-55 form with the case of its first letter flipped: mixed case with a wrong checksum. */
function wrongChecksum(address: string): string {
  const checksummed = getAddress(address);
  const i = checksummed.slice(2).search(/[a-fA-F]/) + 2;
  const c = checksummed[i]!;
  const flipped = c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase();
  return `${checksummed.slice(0, i)}${flipped}${checksummed.slice(i + 1)}`;
}

/** A new address nobody holds a key for and that has never received anything. */
const freshAddress = (): string => Wallet.createRandom().address;

describe('POST /swap (single-chain)', () => {
  let api: DevnetApi;
  let manifest: ManifestChain;
  let provider: JsonRpcProvider;
  let client: ApiClient;
  let user: Wallet;
  let other: Wallet;
  let trader: Wallet;
  let protocolFeeRecipient: string;
  let weth: string;

  const token = (symbol: string): { address: string; decimals: number } => {
    const found = manifest.tokens.find((t) => t.symbol === symbol);
    if (!found) throw new Error(`no ${symbol} in the manifest`);
    return found;
  };
  const decimalsOf = (address: string): number =>
    isNative(address)
      ? 18
      : manifest.tokens.find((t) => t.address.toLowerCase() === address.toLowerCase())!.decimals;

  interface Pair {
    inTokenAddress: string;
    outTokenAddress: string;
    amount: string;
  }
  const baseParams = (pair: Pair, over: Record<string, unknown> = {}) => ({
    chainId: CHAIN_ID,
    ...pair,
    gasPrice: '30',
    slippage: SLIPPAGE,
    ...over,
  });
  const quote = (body: unknown): Promise<ApiResponse<Envelope<{ mode: string; quote: Quote }>>> =>
    client.post<{ mode: string; quote: Quote }>('/quotes', body);
  const swap = (body: unknown): Promise<ApiResponse<Envelope<{ mode: string; swap: Swap }>>> =>
    client.post<{ mode: string; swap: Swap }>('/swap', body);

  async function quoteOk(body: unknown): Promise<Quote> {
    const res = await quote(body);
    if (res.status !== 200) throw new Error(`quote failed: ${res.status} ${res.text}`);
    return res.body.data!.quote;
  }

  /** A quote read from a pool state that has caught up with the chain head (see the file comment). */
  async function settledQuote(body: unknown): Promise<Quote> {
    await api.quotesCaughtUp();
    return quoteOk(body);
  }

  async function swapOk(body: unknown): Promise<Swap> {
    const res = await swap(body);
    if (res.status !== 200) throw new Error(`swap failed: ${res.status} ${res.text}`);
    expect(res.body.success).toBe(true);
    expect(res.body.data!.mode).toBe('single-chain');
    return res.body.data!.swap;
  }

  async function balanceOf(tokenAddress: string, owner: string): Promise<bigint> {
    if (isNative(tokenAddress)) return provider.getBalance(owner);
    return (await new Contract(tokenAddress, ERC20_ABI, provider).getFunction('balanceOf')(owner)) as bigint;
  }

  async function approve(wallet: Wallet, tokenAddress: string, spender: string, amount: bigint) {
    const erc20 = new Contract(tokenAddress, ERC20_ABI, wallet.connect(provider));
    const tx = await erc20.getFunction('approve')(spender, amount);
    const receipt = await waitForReceipt(provider, tx.hash as string);
    expect(receipt?.status).toBe(1);
  }

  /** Signs and sends the swap's {to, data, value} with its gasLimit; the receipt, reverted or not. */
  async function send(wallet: Wallet, s: Swap): Promise<TransactionReceipt> {
    const tx = await wallet.connect(provider).sendTransaction({
      to: s.to,
      data: s.data,
      value: BigInt(s.value),
      gasLimit: BigInt(s.gasLimit),
    });
    const receipt = await waitForReceipt(provider, tx.hash);
    if (!receipt) throw new Error(`no receipt for ${tx.hash}`);
    return receipt;
  }

  /** The revert data of the swap run as eth_call from `from` ('0x' when it would not revert). */
  async function revertData(from: string, s: Swap): Promise<string> {
    try {
      await provider.call({ from, to: s.to, data: s.data, value: BigInt(s.value) });
      return '0x';
    } catch (err) {
      const data = (err as { data?: unknown }).data;
      return typeof data === 'string' ? data : 'no revert data';
    }
  }

  async function txStatus(hash: string): Promise<string> {
    const res = await client.get<TxStatus>(`/transactions/${hash}?chainId=${CHAIN_ID}`);
    expect(res.status).toBe(200);
    return res.body.data!.status;
  }

  function expectError(res: ApiResponse<Envelope>, status: number, code: string): void {
    expect(res.status).toBe(status);
    expect(res.body.success).toBe(false);
    expect(res.body.error?.code).toBe(code);
  }

  /** The response fields that follow from the request alone, whatever the route. */
  function expectSwapShape(s: Swap, pair: Pair): void {
    for (const field of ['value', 'outAmount', 'minOutAmount', 'estimatedGas', 'gasLimit'] as const)
      expect(s[field]).toMatch(/^\d+$/);
    expect(s.data).toMatch(/^0x[0-9a-f]+$/i);
    expect(s.to.toLowerCase()).toBe(manifest.contracts.swapRouter.toLowerCase());
    expect(s.contractToApprove.toLowerCase()).toBe(manifest.contracts.spender.toLowerCase());
    expect(s.value).toBe(isNative(pair.inTokenAddress) ? parseUnits(pair.amount, 18).toString() : '0');
    expect(BigInt(s.gasLimit)).toBe(2n * BigInt(s.estimatedGas));
    expect(BigInt(s.estimatedGas)).toBeGreaterThan(0n);
    // floor(outAmount × (1 − 0.5/100))
    expect(BigInt(s.minOutAmount)).toBe((BigInt(s.outAmount) * 995n) / 1000n);
  }

  /**
   * The full flow for one pair: settle, quote with integrator fees, swap with the quote's aggregatorId,
   * (approve the input when asked to approve after the swap), send, and check every amount on-chain.
   */
  async function quoteSwapSend(
    pair: Pair,
    opts: {
      approve: 'before-quote' | 'after-swap' | 'none';
      quoteParams?: Record<string, unknown>;
      /** Checks at the state the transaction is sent in (after any approval). */
      beforeSend?: (s: Swap) => Promise<void>;
    },
  ): Promise<{ quote: Quote; swap: Swap; receipt: TransactionReceipt }> {
    const feeRecipient = freshAddress();
    const fees = { feeBps: FEE_BPS, feeRecipient };
    const amountIn = parseUnits(pair.amount, decimalsOf(pair.inTokenAddress));
    if (opts.approve === 'before-quote')
      await approve(user, pair.inTokenAddress, manifest.contracts.spender, amountIn);

    const q = await settledQuote({
      mode: 'single-chain',
      params: baseParams(pair, opts.quoteParams),
      fees,
    });
    const s = await swapOk({
      mode: 'single-chain',
      params: baseParams(pair, { account: user.address, aggregatorId: q.aggregatorId }),
      fees,
    });
    expectSwapShape(s, pair);
    // Same state, same source: the swap routes what the quote quoted.
    expect(s.outAmount).toBe(q.outAmount);

    const feeToken = isNative(pair.outTokenAddress) ? weth : pair.outTokenAddress;
    if (opts.approve === 'after-swap') {
      await approve(user, pair.inTokenAddress, s.contractToApprove, amountIn);
    }
    const [outBefore, marginBefore, protocolBefore] = await Promise.all([
      balanceOf(pair.outTokenAddress, user.address),
      balanceOf(feeToken, feeRecipient),
      balanceOf(feeToken, protocolFeeRecipient),
    ]);
    expect(marginBefore).toBe(0n);

    await opts.beforeSend?.(s);
    const receipt = await send(user, s);
    expect(receipt.status).toBe(1);

    const [outAfter, marginAfter, protocolAfter] = await Promise.all([
      balanceOf(pair.outTokenAddress, user.address),
      balanceOf(feeToken, feeRecipient),
      balanceOf(feeToken, protocolFeeRecipient),
    ]);
    const gasPaid = isNative(pair.outTokenAddress) ? receipt.gasUsed * receipt.gasPrice : 0n;
    const received = outAfter - outBefore + gasPaid;
    expect(received).toBeGreaterThanOrEqual(BigInt(s.minOutAmount));
    expect(received).toBe(BigInt(s.outAmount));

    const { integratorFeeBreakdown: fb } = q;
    expect(fb.integratorMarginBps).toBe(FEE_BPS);
    expect(fb.protocolFeeBps).toBe(15);
    const gross = BigInt(q.outAmount) + BigInt(fb.protocolFeeAmount) + BigInt(fb.integratorMarginAmount);
    expect(BigInt(fb.integratorMarginAmount)).toBe((gross * BigInt(FEE_BPS)) / 10_000n);
    expect(BigInt(fb.protocolFeeAmount)).toBe((gross * 1_500n) / 1_000_000n);
    expect(BigInt(fb.integratorMarginAmount)).toBeGreaterThan(0n);
    // The integrator gets exactly the quoted margin, in the output token (WETH for a native output).
    expect(marginAfter - marginBefore).toBe(BigInt(fb.integratorMarginAmount));
    expect(protocolAfter - protocolBefore).toBe(BigInt(fb.protocolFeeAmount));

    expect(await txStatus(receipt.hash)).toBe('success');
    return { quote: q, swap: s, receipt };
  }

  beforeAll(async () => {
    api = await startDevnetApi(CHAIN_ID, 'tas-swap-');
    ({ manifest, provider, client } = api);
    weth = manifest.contracts.weth;
    [user, other, trader] = manifest.accounts.slice(0, 3).map((a) => new Wallet(a.privateKey)) as [
      Wallet,
      Wallet,
      Wallet,
    ];
    protocolFeeRecipient = devnetKeys().protocolFeeRecipient;
    const probe = {
      mode: 'single-chain',
      params: baseParams({ inTokenAddress: weth, outTokenAddress: token('USDC').address, amount: '1' }),
    };
    await waitUntilQuotesAvailable(() => quote(probe));
  });

  afterAll(async () => {
    await api?.close();
  });

  describe('executes on-chain for the quoted amounts', () => {
    it('native → ERC-20 (native pseudo-address in): value is the amount in wei, gas from the dry run', async () => {
      const pair = { inTokenAddress: NATIVE_LOWER, outTokenAddress: token('USDC').address, amount: '1.5' };
      const { swap: s, receipt } = await quoteSwapSend(pair, {
        approve: 'none',
        // The account holds the coins, so the dry run passes and the gas is estimated from the account.
        beforeSend: async (built) => {
          const estimate = await provider.estimateGas({
            from: user.address,
            to: built.to,
            data: built.data,
            value: BigInt(built.value),
          });
          expect(BigInt(built.estimatedGas)).toBe(estimate);
        },
      });
      expect(s.value).toBe('1500000000000000000');
      expect(receipt.gasUsed).toBeLessThanOrEqual(BigInt(s.gasLimit));
    });

    it('ERC-20 → native, approving contractToApprove after the swap answered (value "0")', async () => {
      const pair = {
        inTokenAddress: token('USDC').address,
        outTokenAddress: NATIVE_CHECKSUM,
        amount: '2500',
      };
      const allowance = (await new Contract(pair.inTokenAddress, ERC20_ABI, provider).getFunction(
        'allowance',
      )(user.address, manifest.contracts.spender)) as bigint;
      expect(allowance).toBe(0n);
      const { quote: q, swap: s } = await quoteSwapSend(pair, { approve: 'after-swap' });
      expect(s.value).toBe('0');
      // No allowance yet at swap time: the route's gas plus the router's overhead (documented fallback).
      expect(BigInt(s.estimatedGas)).toBe(BigInt(q.estimatedGas) + ROUTER_OVERHEAD_GAS);
    });

    it('ERC-20 → ERC-20 multi-hop (LINK → UNI: no direct pool, through WETH)', async () => {
      const link = token('LINK').address;
      const uni = token('UNI').address;
      const factory = new Contract(manifest.contracts.uniswapV2Factory, V2_FACTORY_ABI, provider);
      expect(await factory.getFunction('getPair')(link, uni)).toBe(ZeroAddress);
      const pair = { inTokenAddress: link, outTokenAddress: uni, amount: '120.5' };
      const { quote: q, swap: s } = await quoteSwapSend(pair, {
        approve: 'before-quote',
        // Funded and approved: the gas is eth_estimateGas of the very transaction from the account.
        beforeSend: async (built) => {
          const estimate = await provider.estimateGas({
            from: user.address,
            to: built.to,
            data: built.data,
            value: 0n,
          });
          expect(BigInt(built.estimatedGas)).toBe(estimate);
        },
      });
      for (const route of q.routes) {
        expect(route.subRoutes.length).toBeGreaterThanOrEqual(2);
        expect(route.subRoutes[0]!.from.toLowerCase()).toBe(link.toLowerCase());
        expect(route.subRoutes[route.subRoutes.length - 1]!.to.toLowerCase()).toBe(uni.toLowerCase());
      }
      expect(s.value).toBe('0');
    });

    it('a split within one source: uniswap-v3 over both fee tiers of WETH/USDC', async () => {
      const pair = { inTokenAddress: weth, outTokenAddress: token('USDC').address, amount: '150' };
      const { quote: q } = await quoteSwapSend(pair, {
        approve: 'before-quote',
        quoteParams: { excludeMetaAggregatorId: allBut('uniswap-v3') },
      });
      expect(q.aggregatorId).toBe('uniswap-v3');
      expect(q.routes.length).toBeGreaterThanOrEqual(2);
    });

    it('a split: a large WETH → USDC amount quoted over at least two routes', async () => {
      const pair = { inTokenAddress: weth, outTokenAddress: token('USDC').address, amount: '300' };
      const { quote: q } = await quoteSwapSend(pair, { approve: 'before-quote' });
      expect(q.routes.length).toBeGreaterThanOrEqual(2);
      const total = q.routes.reduce((sum, r) => sum + r.percentage, 0);
      expect(total).toBeCloseTo(100, 1);
    });
  });

  describe('calldata bound to the account', () => {
    it('answers 200 for a fresh unfunded account (calldata is built before the wallet is funded and approved)', async () => {
      const usdc = token('USDC').address;
      const account = freshAddress();
      for (const pair of [
        { inTokenAddress: usdc, outTokenAddress: weth, amount: '100' },
        { inTokenAddress: NATIVE_LOWER, outTokenAddress: usdc, amount: '0.25' },
      ]) {
        const q = await settledQuote({ mode: 'single-chain', params: baseParams(pair) });
        const res = await swap({
          mode: 'single-chain',
          params: baseParams(pair, { account, aggregatorId: q.aggregatorId }),
        });
        expect(res.status).toBe(200);
        const s = res.body.data!.swap;
        expectSwapShape(s, pair);
        expect(s.outAmount).toBe(q.outAmount);
        // The dry run cannot pass without funds: the route's gas plus the router's overhead.
        expect(BigInt(s.estimatedGas)).toBe(BigInt(q.estimatedGas) + ROUTER_OVERHEAD_GAS);
      }
    });

    it("builds the swap for every aggregatorId in the quote's aggregatorOrder (the documented fallback)", async () => {
      const pair = { inTokenAddress: weth, outTokenAddress: token('USDC').address, amount: '1' };
      const q = await settledQuote({ mode: 'single-chain', params: baseParams(pair) });
      // WETH/USDC pools: Uniswap V2 and V3, SushiSwap, Uniswap V4; our router combines them.
      expect([...q.aggregatorOrder].sort()).toEqual([
        'sushiswap-v2',
        'tas-smart',
        'uniswap-v2',
        'uniswap-v3',
        'uniswap-v4',
      ]);
      const answers: Record<string, number> = {};
      for (const aggregatorId of q.aggregatorOrder) {
        const res = await swap({
          mode: 'single-chain',
          params: baseParams(pair, { account: user.address, aggregatorId }),
        });
        answers[aggregatorId] = res.status;
        if (res.status === 200) expectSwapShape(res.body.data!.swap, pair);
      }
      expect(answers).toEqual({
        'sushiswap-v2': 200,
        'tas-smart': 200,
        'uniswap-v2': 200,
        'uniswap-v3': 200,
        'uniswap-v4': 200,
      });
    });

    it('accepts dryRun on single-chain with no effect on the answer', async () => {
      const pair = { inTokenAddress: NATIVE_LOWER, outTokenAddress: token('DAI').address, amount: '0.3' };
      const q = await settledQuote({ mode: 'single-chain', params: baseParams(pair) });
      const params = baseParams(pair, { account: user.address, aggregatorId: q.aggregatorId });
      const plain = await swapOk({ mode: 'single-chain', params });
      const dry = await swapOk({ mode: 'single-chain', params: { ...params, dryRun: true } });
      expect(dry.outAmount).toBe(plain.outAmount);
      expect(dry.minOutAmount).toBe(plain.minOutAmount);
      expect(dry.value).toBe(plain.value);
      expect(dry.to).toBe(plain.to);
    });

    it('reverts when another account sends the same calldata', async () => {
      const pair = { inTokenAddress: NATIVE_LOWER, outTokenAddress: token('USDC').address, amount: '0.5' };
      const q = await settledQuote({ mode: 'single-chain', params: baseParams(pair) });
      const s = await swapOk({
        mode: 'single-chain',
        params: baseParams(pair, { account: user.address, aggregatorId: q.aggregatorId }),
      });
      // The account it was built for could send it.
      expect(await revertData(user.address, s)).toBe('0x');
      expect(await revertData(other.address, s)).toBe(SWAP_ROUTER_ERRORS.encodeErrorResult('NotAccount', []));
      const usdcBefore = await balanceOf(pair.outTokenAddress, other.address);
      const receipt = await send(other, s);
      expect(receipt.status).toBe(0);
      expect(await balanceOf(pair.outTokenAddress, other.address)).toBe(usdcBefore);
      expect(await txStatus(receipt.hash)).toBe('reverted');
    });
  });

  describe('errors', () => {
    const usdcPair = (): Pair => ({
      inTokenAddress: weth,
      outTokenAddress: token('USDC').address,
      amount: '1',
    });

    it('answers 400 with a detail on params.aggregatorId for an unknown aggregatorId', async () => {
      const res = await swap({
        mode: 'single-chain',
        params: baseParams(usdcPair(), { account: user.address, aggregatorId: 'no-such-source' }),
      });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error?.details).toEqual([expect.objectContaining({ field: 'params.aggregatorId' })]);
    });

    it('answers 400 "Must be a valid EVM address" for an account with a wrong checksum', async () => {
      const res = await swap({
        mode: 'single-chain',
        params: baseParams(usdcPair(), { account: wrongChecksum(user.address), aggregatorId: 'uniswap-v2' }),
      });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error?.details).toEqual([
        { field: 'params.account', message: 'Must be a valid EVM address' },
      ]);
    });

    it('answers 400 naming the field when account, aggregatorId, gasPrice or slippage is missing', async () => {
      const full = baseParams(usdcPair(), { account: user.address, aggregatorId: 'uniswap-v2' });
      for (const missing of ['account', 'aggregatorId', 'gasPrice', 'slippage'] as const) {
        const params: Record<string, unknown> = { ...full };
        delete params[missing];
        const res = await swap({ mode: 'single-chain', params });
        expectError(res, 400, 'VALIDATION_ERROR');
        // The only detail: the body says single-chain, so no cross-chain field is listed.
        expect(res.body.error?.details).toEqual([{ field: `params.${missing}`, message: 'Is required' }]);
      }
    });

    const crossChainParams = () => ({
      fromChainId: 1,
      toChainId: 137,
      inTokenAddress: token('USDC').address,
      outTokenAddress: token('USDC').address,
      amount: '10',
      slippage: '1',
      account: user.address,
      aggregatorId: 'some-bridge',
    });

    it('answers 400 for a cross-chain swap to a chain this devnet does not run', async () => {
      const res = await swap({ mode: 'cross-chain', params: crossChainParams() });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error?.details).toEqual([
        { field: 'params.toChainId', message: 'Chain 137 is not enabled' },
      ]);
    });

    it('answers 400 for a cross-chain swap with dryRun', async () => {
      const res = await swap({ mode: 'cross-chain', params: { ...crossChainParams(), dryRun: true } });
      expectError(res, 400, 'VALIDATION_ERROR');
    });
  });

  describe('slippage', () => {
    it('reverts once the price moved against the swap by more than the slippage', async () => {
      // LINK trades only in the V2 WETH/LINK pair: moving that pool moves every route.
      const pair = { inTokenAddress: weth, outTokenAddress: token('LINK').address, amount: '2' };
      const amountIn = parseUnits(pair.amount, 18);
      await approve(user, weth, manifest.contracts.spender, amountIn);
      const q = await settledQuote({
        mode: 'single-chain',
        params: baseParams(pair, { excludeMetaAggregatorId: allBut('uniswap-v2') }),
      });
      expect(q.aggregatorId).toBe('uniswap-v2');
      const s = await swapOk({
        mode: 'single-chain',
        params: baseParams(pair, { account: user.address, aggregatorId: q.aggregatorId }),
      });
      expect(await revertData(user.address, s)).toBe('0x');

      // Another funded account sells WETH into the pool: 5% down, ten times the 0.5% slippage.
      await movePrice({
        provider,
        chainId: CHAIN_ID,
        world: manifest,
        pair: 'WETH/LINK',
        by: -0.05,
        dex: 'v2',
        signer: trader,
      });

      const data = await revertData(user.address, s);
      expect(data.slice(0, 10)).toBe(SWAP_ROUTER_ERRORS.getError('InsufficientOutput')!.selector);
      const usdcBefore = await balanceOf(pair.outTokenAddress, user.address);
      const wethBefore = await balanceOf(weth, user.address);
      const receipt = await send(user, s);
      expect(receipt.status).toBe(0);
      expect(await balanceOf(pair.outTokenAddress, user.address)).toBe(usdcBefore);
      expect(await balanceOf(weth, user.address)).toBe(wethBefore);
      expect(await txStatus(receipt.hash)).toBe('reverted');
      // Swapped again after the move, at the moved price, the calldata executes.
      const again = await quoteSwapSend(pair, {
        approve: 'before-quote',
        quoteParams: { excludeMetaAggregatorId: allBut('uniswap-v2') },
      });
      expect(BigInt(again.swap.outAmount)).toBeLessThan(BigInt(s.minOutAmount));
    });
  });
});
