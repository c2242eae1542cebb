import { setTimeout as sleep } from 'node:timers/promises';
import { Contract, MaxUint256, parseEther, parseUnits, type JsonRpcProvider, type Wallet } from 'ethers';
import { movePrice, type MovePriceResult } from '../../devnet/market-mover';
import { readV2Pool, readV3Pool, type PairToken } from '../../devnet/market/pool-price';
import type { ManifestChain } from '../../devnet/manifest';
import { TEST_TOKEN_ABI } from '../../devnet/world/abis';
import type { BlockClock } from './block-clock';

export interface PoolRef {
  dex: 'v2' | 'v3';
  fee?: number;
}

/** Every WETH/USDC pool of the fixture world: the keeper routes over all of them. */
export const WETH_USDC_POOLS: readonly PoolRef[] = [
  { dex: 'v2' },
  { dex: 'v3', fee: 500 },
  { dex: 'v3', fee: 3000 },
];

const USDC_BUDGET = parseUnits('5000000', 6);
const APPROVE_GAS = 80_000n;
const POOL_WAIT_MS = 20_000;

/**
 * Moves every WETH/USDC pool with the market mover in ONE block, so all triggers cross at the same block. Each pool
 * is moved by its own signer (the mover, then helper wallets it funds): ganache's pending nonce ignores pooled
 * transactions, so one signer could not queue three moves in one held block.
 */
export class MarketCrossing {
  private readonly pools: Array<PoolRef & { signer: Wallet }>;

  constructor(
    private readonly provider: JsonRpcProvider,
    private readonly manifest: ManifestChain,
    mover: Wallet,
    helpers: readonly Wallet[],
  ) {
    const signers = [mover, ...helpers].map((w) => w.connect(provider));
    if (signers.length < WETH_USDC_POOLS.length)
      throw new Error(`${WETH_USDC_POOLS.length} signers needed, got ${signers.length}`);
    this.pools = WETH_USDC_POOLS.map((p, i) => ({ ...p, signer: signers[i]! }));
  }

  private token(symbol: string): PairToken {
    const t = this.manifest.tokens.find((x) => x.symbol === symbol);
    if (!t) throw new Error(`no ${symbol} on chain ${this.manifest.chainId}`);
    return t;
  }

  /**
   * Gas money and USDC for every signer (the fixture's USDC mints freely), and unlimited approvals to both
   * routers, so that the moves themselves send nothing but their swaps.
   */
  async prepare(): Promise<void> {
    const [mover] = this.pools.map((p) => p.signer);
    const usdc = this.token('USDC').address;
    const { uniswapV2Router02, uniswapV3SwapRouter } = this.manifest.contracts;
    for (const { signer } of this.pools) {
      if (signer !== mover) {
        await (await mover!.sendTransaction({ to: signer.address, value: parseEther('10') })).wait();
      }
      const token = new Contract(usdc, TEST_TOKEN_ABI, signer);
      await (await token.getFunction('mint')(signer.address, USDC_BUDGET)).wait();
      for (const spender of [uniswapV2Router02, uniswapV3SwapRouter]) {
        await (await token.getFunction('approve')(spender, MaxUint256, { gasLimit: APPROVE_GAS })).wait();
      }
    }
  }

  /** Spot price of 1 WETH in USDC in each pool. */
  async spotPrices(): Promise<number[]> {
    const [weth, usdc] = [this.token('WETH'), this.token('USDC')];
    const { uniswapV2Factory, uniswapV3Factory } = this.manifest.contracts;
    return Promise.all(
      this.pools.map(async (p) =>
        p.dex === 'v2'
          ? (await readV2Pool(this.provider, uniswapV2Factory, weth, usdc)).price
          : (await readV3Pool(this.provider, uniswapV3Factory, weth, usdc, p.fee!)).price,
      ),
    );
  }

  /** Moves every pool's WETH price by `by` (0.1 = +10 %) in one block; returns that block's number. */
  async moveAll(clock: BlockClock, by: number): Promise<{ block: number; moves: MovePriceResult[] }> {
    await clock.hold();
    const moves = this.pools.map((p) =>
      movePrice({
        provider: this.provider,
        chainId: this.manifest.chainId,
        world: this.manifest,
        pair: 'WETH/USDC',
        by,
        dex: p.dex,
        fee: p.fee,
        signer: p.signer,
      }),
    );
    // movePrice waits for its receipt, so the block is mined once every swap is in the pool.
    const failed: unknown[] = [];
    for (const m of moves) m.catch((err: unknown) => failed.push(err));
    const deadline = Date.now() + POOL_WAIT_MS;
    while ((await clock.pending()) < moves.length) {
      if (failed.length || Date.now() > deadline) {
        await clock.mineNow();
        await Promise.allSettled(moves);
        throw new Error(`market moves did not reach the pool: ${failed.map(String).join('; ')}`);
      }
      await sleep(20);
    }
    await clock.mineNow();
    const results = await Promise.all(moves);
    const blocks = new Set(
      await Promise.all(
        results.map(async (m) => (await this.provider.getTransactionReceipt(m.txHash))!.blockNumber),
      ),
    );
    if (blocks.size !== 1) throw new Error(`the market moves landed in blocks ${[...blocks].join(', ')}`);
    return { block: [...blocks][0]!, moves: results };
  }
}
