import { rescale } from '../../shared/bridges/transfer-pricing';

/** One chain's holding of an asset by the relayer, as last read. */
export interface Holding {
  chainId: number;
  token: string;
  decimals: number;
  units: bigint;
  readAt: number;
}

/** A move the rebalancer makes: `units` of the source chain's token to the destination chain. */
export interface RebalanceMove {
  asset: string;
  from: Holding;
  to: Holding;
  /** Base units of `from.token`. */
  units: bigint;
}

export interface Watermarks {
  /** A chain holding less than this share of the asset's average across chains is running low (percent). */
  lowPercent: number;
  /** A chain holding more than this share of the average may give some away (percent). */
  highPercent: number;
}

/** Holdings are compared in 18 decimals, whatever each chain's token has. */
const COMMON_DECIMALS = 18;
/** A reading older than this is not trusted for a move. */
const FRESH_MS = 60_000;

/**
 * The relayer's inventory on every chain, per asset (a name that is the same on every chain: ETH for ether and
 * WETH, USDC…), kept in memory by each chain's inventory stage and read by the rebalancer. One per keeper process.
 */
export class InventoryBook {
  private readonly holdings = new Map<string, Map<number, Holding>>();

  record(asset: string, holding: Holding): void {
    const byChain = this.holdings.get(asset) ?? new Map<number, Holding>();
    byChain.set(holding.chainId, holding);
    this.holdings.set(asset, byChain);
  }

  /**
   * The move from `chainId` this reading calls for, if any: when the chain holds more than the high watermark of
   * the asset's average and another chain less than the low one, enough to bring the poorer chain to the average
   * without taking this one below it.
   */
  moveFrom(chainId: number, asset: string, marks: Watermarks, nowMs: number): RebalanceMove | undefined {
    const fresh = [...(this.holdings.get(asset)?.values() ?? [])].filter((h) => nowMs - h.readAt <= FRESH_MS);
    const mine = fresh.find((h) => h.chainId === chainId);
    if (!mine || fresh.length < 2) return undefined;
    const common = (h: Holding): bigint => rescale(h.units, h.decimals, COMMON_DECIMALS);
    const average = fresh.reduce((sum, h) => sum + common(h), 0n) / BigInt(fresh.length);
    if (average === 0n) return undefined;
    if (common(mine) * 100n <= average * BigInt(marks.highPercent)) return undefined;
    const poorest = fresh
      .filter((h) => h.chainId !== chainId)
      .sort((a, b) => (common(a) < common(b) ? -1 : 1))[0];
    if (!poorest || common(poorest) * 100n >= average * BigInt(marks.lowPercent)) return undefined;
    const spare = common(mine) - average;
    const missing = average - common(poorest);
    const units = rescale(spare < missing ? spare : missing, COMMON_DECIMALS, mine.decimals);
    return units > 0n ? { asset, from: mine, to: poorest, units } : undefined;
  }
}
