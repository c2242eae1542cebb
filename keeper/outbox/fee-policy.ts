import { RpcUnavailableError } from '../../shared/chain/rpc-errors';
import type { RawRpc } from './raw-rpc';

/** EIP-1559 (type 2) fees, in wei per gas. */
export interface Eip1559Fees {
  type: 2;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** Fees of a legacy (type 0) transaction, for chains without a base fee. */
export interface LegacyFees {
  type: 0;
  gasPrice: bigint;
}

export type TxFees = Eip1559Fees | LegacyFees;

/**
 * What to pay now. `too-expensive`: including a transaction in the next block needs more per gas than the chain's
 * cap allows (`neededPerGas` = base fee + priority fee, or the gas price); the caller backs off and sends nothing.
 */
export type FeeDecision =
  | { kind: 'ok'; fees: TxFees; baseFeePerGas: bigint | null }
  | { kind: 'too-expensive'; neededPerGas: bigint; capPerGas: bigint; baseFeePerGas: bigint | null };

/**
 * Fees for a replacement. `capped`: the smallest bump nodes accept (`neededPerGas`, on maxFeePerGas or gasPrice)
 * is above the cap, so no valid replacement can be sent; the transaction stays as it is.
 */
export type ReplacementDecision =
  { kind: 'ok'; fees: TxFees } | { kind: 'capped'; neededPerGas: bigint; capPerGas: bigint };

export interface FeePolicyOptions {
  /** Most the keeper pays per gas on this chain, in wei: caps maxFeePerGas, and gasPrice on legacy chains. */
  maxFeePerGasCap: bigint;
  /** Blocks of eth_feeHistory the priority fee is taken from. */
  feeHistoryBlocks?: number;
  /** Percentile of each block's priority fees (eth_feeHistory rewardPercentiles). */
  rewardPercentile?: number;
  /** Least priority fee offered (some chains' validators ignore lower tips, e.g. Polygon's 30 gwei). */
  minPriorityFeePerGas?: bigint;
  /**
   * maxFeePerGas = base fee × this + priority fee. 2 survives six full blocks of base-fee increases (12.5% each),
   * so a transaction is not priced out while it waits; only the effective price is paid.
   */
  baseFeeMultiplier?: bigint;
}

/** geth and erigon want 10%, Nethermind and the former OpenEthereum 12.5%: the larger works everywhere. */
export const REPLACEMENT_BUMP_PER_MILLE = 1125n;

export const DEFAULT_FEE_HISTORY_BLOCKS = 10;
export const DEFAULT_REWARD_PERCENTILE = 50;
export const DEFAULT_BASE_FEE_MULTIPLIER = 2n;

/**
 * The fees of one chain's transactions: EIP-1559 from the chain's latest base fee and recent priority fees, a
 * legacy gas price where blocks have no base fee, never above the chain's cap.
 */
export class FeePolicy {
  readonly cap: bigint;
  private readonly historyBlocks: number;
  private readonly percentile: number;
  private readonly minPriority: bigint;
  private readonly multiplier: bigint;

  constructor(
    private readonly rpc: RawRpc,
    opts: FeePolicyOptions,
  ) {
    this.cap = opts.maxFeePerGasCap;
    this.historyBlocks = opts.feeHistoryBlocks ?? DEFAULT_FEE_HISTORY_BLOCKS;
    this.percentile = opts.rewardPercentile ?? DEFAULT_REWARD_PERCENTILE;
    this.minPriority = opts.minPriorityFeePerGas ?? 0n;
    this.multiplier = opts.baseFeeMultiplier ?? DEFAULT_BASE_FEE_MULTIPLIER;
    if (this.cap <= 0n) throw new Error(`maxFeePerGasCap must be positive, got ${this.cap}`);
    if (!Number.isInteger(this.historyBlocks) || this.historyBlocks < 1 || this.historyBlocks > 1024)
      throw new Error(`feeHistoryBlocks must be an integer from 1 to 1024, got ${this.historyBlocks}`);
    if (!(this.percentile >= 0 && this.percentile <= 100))
      throw new Error(`rewardPercentile must be within 0..100, got ${this.percentile}`);
    if (this.minPriority < 0n || this.multiplier < 1n)
      throw new Error('minPriorityFeePerGas must be >= 0 and baseFeeMultiplier >= 1');
  }

  /** Fees for a new transaction now. Rejects only when the chain cannot be read (RpcUnavailableError). */
  async current(): Promise<FeeDecision> {
    const baseFeePerGas = await this.latestBaseFee();
    if (baseFeePerGas === null) {
      const gasPrice = await this.gasPrice();
      return gasPrice > this.cap
        ? { kind: 'too-expensive', neededPerGas: gasPrice, capPerGas: this.cap, baseFeePerGas }
        : { kind: 'ok', fees: { type: 0, gasPrice }, baseFeePerGas };
    }
    const priority = maxOf(await this.priorityFee(baseFeePerGas), this.minPriority);
    const needed = baseFeePerGas + priority;
    if (needed > this.cap) {
      return { kind: 'too-expensive', neededPerGas: needed, capPerGas: this.cap, baseFeePerGas };
    }
    // Under the cap the next block is affordable; the headroom for later base-fee rises is what the cap trims.
    const maxFeePerGas = minOf(baseFeePerGas * this.multiplier + priority, this.cap);
    return { kind: 'ok', fees: { type: 2, maxFeePerGas, maxPriorityFeePerGas: priority }, baseFeePerGas };
  }

  /** See `replacementFees`, with this chain's cap. */
  bumpForReplacement(prev: TxFees, market?: TxFees): ReplacementDecision {
    return replacementFees(prev, this.cap, market);
  }

  private async latestBaseFee(): Promise<bigint | null> {
    const block = await this.rpc.send('eth_getBlockByNumber', ['latest', false]);
    if (typeof block !== 'object' || block === null)
      throw new Error('eth_getBlockByNumber(latest) gave no block');
    const base = (block as { baseFeePerGas?: unknown }).baseFeePerGas;
    return typeof base === 'string' ? quantity(base, 'baseFeePerGas') : null;
  }

  private async gasPrice(): Promise<bigint> {
    return quantity(await this.rpc.send('eth_gasPrice', []), 'eth_gasPrice');
  }

  /**
   * The median over recent non-empty blocks of their priority-fee percentile; without that history
   * eth_maxPriorityFeePerGas, then gas price minus base fee. A method the node lacks falls through to the next
   * source; an unreachable node fails the call.
   */
  private async priorityFee(baseFee: bigint): Promise<bigint> {
    const fromHistory = await this.optional(async () => {
      const history = await this.rpc.send('eth_feeHistory', [
        `0x${this.historyBlocks.toString(16)}`,
        'latest',
        [this.percentile],
      ]);
      return historyPriorityFee(history);
    });
    if (fromHistory !== undefined) return fromHistory;
    const suggested = await this.optional(async () =>
      quantity(await this.rpc.send('eth_maxPriorityFeePerGas', []), 'eth_maxPriorityFeePerGas'),
    );
    if (suggested !== undefined) return suggested;
    const gasPrice = await this.gasPrice();
    return gasPrice > baseFee ? gasPrice - baseFee : 0n;
  }

  private async optional(read: () => Promise<bigint | undefined>): Promise<bigint | undefined> {
    try {
      return await read();
    } catch (err) {
      if (err instanceof RpcUnavailableError) throw err;
      return undefined;
    }
  }
}

/**
 * Fees for re-sending a transaction with the same nonce: at least 12.5% more than `prev` on every price field
 * (rounded up, plus 1 wei so that no node's rounding rejects it), raised further to `market` (the current fees)
 * when the market moved more, and never above `cap`. When even the minimum bump is above the cap, `capped`.
 */
export function replacementFees(prev: TxFees, cap: bigint, market?: TxFees): ReplacementDecision {
  if (prev.type === 0) {
    const minimum = bumped(prev.gasPrice);
    if (minimum > cap) return { kind: 'capped', neededPerGas: minimum, capPerGas: cap };
    const wanted = market?.type === 0 ? maxOf(minimum, market.gasPrice) : minimum;
    return { kind: 'ok', fees: { type: 0, gasPrice: minOf(wanted, cap) } };
  }
  const minMax = bumped(prev.maxFeePerGas);
  const minPriority = bumped(prev.maxPriorityFeePerGas);
  if (minMax > cap) return { kind: 'capped', neededPerGas: minMax, capPerGas: cap };
  let maxFee = minMax;
  let priority = minPriority;
  if (market?.type === 2) {
    maxFee = maxOf(maxFee, market.maxFeePerGas);
    priority = maxOf(priority, market.maxPriorityFeePerGas);
  }
  maxFee = minOf(maxOf(maxFee, priority), cap);
  // Both minimums fit under the cap (minPriority ≤ minMax ≤ cap), so trimming to maxFee keeps the bump valid.
  priority = maxOf(minOf(priority, maxFee), minPriority);
  return { kind: 'ok', fees: { type: 2, maxFeePerGas: maxFee, maxPriorityFeePerGas: priority } };
}

/** The smallest price a replacement offers: ⌈price × 1.125⌉ + 1 wei. */
export function bumped(price: bigint): bigint {
  return (price * REPLACEMENT_BUMP_PER_MILLE + 999n) / 1000n + 1n;
}

/** Median of the per-block rewards of blocks that had transactions; undefined without any. */
function historyPriorityFee(history: unknown): bigint | undefined {
  if (typeof history !== 'object' || history === null) return undefined;
  const { reward, gasUsedRatio } = history as { reward?: unknown; gasUsedRatio?: unknown };
  if (!Array.isArray(reward)) return undefined;
  const ratios = Array.isArray(gasUsedRatio) ? gasUsedRatio : [];
  const tips: bigint[] = [];
  reward.forEach((entry: unknown, i) => {
    // An empty block's reward is 0 whatever the market: it would drag the median down.
    if (typeof ratios[i] === 'number' && ratios[i] === 0) return;
    if (Array.isArray(entry) && typeof entry[0] === 'string') tips.push(quantity(entry[0], 'reward'));
  });
  if (tips.length === 0) return undefined;
  tips.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return tips[Math.floor(tips.length / 2)];
}

function quantity(value: unknown, what: string): bigint {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value))
    throw new Error(`${what}: not a hex quantity: ${JSON.stringify(value)}`);
  return BigInt(value);
}

const maxOf = (a: bigint, b: bigint): bigint => (a > b ? a : b);
const minOf = (a: bigint, b: bigint): bigint => (a < b ? a : b);
