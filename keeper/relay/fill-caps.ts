import { formatUnits } from 'ethers';
import type { TransferToken } from '../../shared/bridges/cross-chain-provider';
import type { TransfersRepository } from '../../shared/store/repositories/transfers-repository';
import { USD_DECIMALS } from './fill-valuation';

/** Why a cap held a fill (or a release) back; the values of `tas_keeper_relay_fills_held_total{reason}`. */
export const CAP_REASONS = ['max_fill', 'max_hourly', 'inventory_floor'] as const;
export type CapReason = (typeof CAP_REASONS)[number];

/** One payout about to be sent on a destination chain. */
export interface CapCheck {
  destinationChainId: number;
  /** The token paid out, on the destination. */
  token: TransferToken;
  /** Base units of `token` paid out. */
  amount: bigint;
  /** What `amount` is worth, in micro-dollars (FillValuation.usdValue). */
  usdValue: bigint;
  /** What the paying wallet (or bridge) holds of `token` before this payout, in base units. */
  balance: bigint;
}

export interface CapHold {
  reason: CapReason;
  message: string;
}

/** The limits, in whole USD. */
export interface FillCapLimits {
  /** Per payout. */
  maxFillUsd: number;
  /** Per token and destination chain over the last hour, this payout included. */
  maxHourlyUsd: number;
  /** The least a payout may leave of the token on a destination chain (the chain entry's own, or the default). */
  inventoryFloorUsd(chainId: number): number;
}

export interface FillCapsDeps {
  transfers: Pick<TransfersRepository, 'sumOutputSentSince'>;
  limits: FillCapLimits;
  now: () => number;
}

const HOUR_MS = 3_600_000;
const USD_UNIT = 10n ** BigInt(USD_DECIMALS);

/** Whole USD (a config number) in micro-dollars. */
function micros(usd: number): bigint {
  return BigInt(Math.round(usd * Number(USD_UNIT)));
}

function usd(microDollars: bigint): string {
  return `${formatUnits(microDollars, USD_DECIMALS).replace(/\.0$/, '')} USD`;
}

/**
 * The relayer's limits on what it pays out, whatever the valuation says: a cap per payout, a cap per token and
 * destination chain per hour (summed from the store, so it holds across restarts and across keepers sharing it),
 * and a floor of the token the paying wallet keeps on each chain. Checked after the valuation and before the
 * payout is sent, by the intent fills and the lock-and-release releases alike; the cheap checks first, the store
 * last. A held payout is tried again later: caps bound the loss a mispricing can cause, they are no verdict on the
 * deposit.
 */
export class FillCaps {
  constructor(private readonly deps: FillCapsDeps) {}

  /** undefined when the payout is within every cap; otherwise the cap that holds it and why. */
  async check(c: CapCheck): Promise<CapHold | undefined> {
    const { limits } = this.deps;
    const maxFill = micros(limits.maxFillUsd);
    if (c.usdValue > maxFill) {
      return {
        reason: 'max_fill',
        message: `${usd(c.usdValue)} of ${c.token.symbol} is over the ${usd(maxFill)} cap per fill`,
      };
    }
    // Prices of the rest of the holding and of earlier payouts: pro rata to this payout's value.
    const valueOf = (units: bigint): bigint => (c.amount > 0n ? (units * c.usdValue) / c.amount : 0n);
    const floor = micros(limits.inventoryFloorUsd(c.destinationChainId));
    if (floor > 0n && c.amount > 0n) {
      const left = c.balance > c.amount ? c.balance - c.amount : 0n;
      if (valueOf(left) < floor) {
        return {
          reason: 'inventory_floor',
          message: `it would leave ${usd(valueOf(left))} of ${c.token.symbol} on chain ${c.destinationChainId}, under the ${usd(floor)} floor`,
        };
      }
    }
    const maxHourly = micros(limits.maxHourlyUsd);
    if (c.amount === 0n) return undefined;
    const sent = await this.deps.transfers.sumOutputSentSince(
      c.destinationChainId,
      c.token.address,
      this.deps.now() - HOUR_MS,
    );
    const hour = valueOf(sent) + c.usdValue;
    if (hour > maxHourly) {
      return {
        reason: 'max_hourly',
        message: `${usd(hour)} of ${c.token.symbol} on chain ${c.destinationChainId} in the last hour with it, over the ${usd(maxHourly)} cap`,
      };
    }
    return undefined;
  }
}
