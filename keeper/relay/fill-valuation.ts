import type { TransferToken } from '../../shared/bridges/cross-chain-provider';
import { listedTransferToken, rescale, type TransferPricing } from '../../shared/bridges/transfer-pricing';
import type { PriceListToken } from '../../shared/routing/prices/usd-prices';
import type { ReferencePrices } from './reference-prices';

/** The listed token of a chain by address, as the keeper's Prices knows it. */
export type TokenLookup = (chainId: number, address: string) => PriceListToken | undefined;

/** What a fill is worth to the relayer, in base units of the output token on the destination. */
export interface FillValue {
  /** The input (repaid on the origin) valued in the output token: the lower of the spot and reference values. */
  inputInOutput: bigint;
  /** The input valued at the pools' latest state (what selling it would pay now). */
  spotInOutput: bigint;
  /** The input valued at the reference prices (time-weighted or feeds). */
  referenceInOutput: bigint;
  /** The destination gas of the fill, valued in the output token. */
  gasInOutput: bigint;
  /** inputInOutput − outputAmount − gasInOutput (negative: a loss). */
  profit: bigint;
  /** profit in basis points of inputInOutput. */
  profitBps: number;
}

/**
 * What the valuation decided: a value to check the margin on; no price now on the pools (`no-spot-price`: the
 * market is stale or has no route) or from the oracle (`no-reference-price`); or spot and reference too far apart
 * (`price-deviation`, the pools were moved: a deposit priced off a pumped pool is not paid out).
 */
export type FillValuationResult =
  | { kind: 'value'; value: FillValue }
  | { kind: 'no-spot-price' }
  | { kind: 'no-reference-price' }
  | { kind: 'price-deviation'; spotInOutput: bigint; referenceInOutput: bigint; deviationBps: number };

/** USD as the caps count it: micro-dollars (a 6-decimal stable's base unit). */
export const USD_DECIMALS = 6;

export interface FillValuationOptions {
  /** The widest the spot value of a fill's input may stray from its reference value, in basis points. */
  maxDeviationBps: number;
}

/** |spot − reference| in basis points of reference, rounded up (a bound must not let a hair through). */
export function deviationBps(spot: bigint, reference: bigint): number {
  if (reference === 0n) return spot === 0n ? 0 : Number.POSITIVE_INFINITY;
  const gap = spot > reference ? spot - reference : reference - spot;
  return Number((gap * 10_000n + reference - 1n) / reference);
}

function transferToken(lookup: TokenLookup, chainId: number, address: string): TransferToken | undefined {
  const listed = lookup(chainId, address);
  return listed && listedTransferToken(chainId, listed);
}

/**
 * Values fills twice: the way the quote priced them (TransferPricing: the input on the origin and the output on the
 * destination through each chain's routed prices, from memory) and at reference prices one block cannot move
 * (ReferencePrices: the chains' PriceOracles, an eth_call per pair cached for a block or two). A latest pool state
 * alone is anyone's to set for a block: a deposit whose input is worth much more at spot than at the reference is
 * someone's pump, and is not filled; otherwise the lower of the two values is what the fill is worth.
 */
export class FillValuation {
  constructor(
    private readonly pricing: Pick<
      TransferPricing,
      'convert' | 'nativeCostIn' | 'sameAsset' | 'referenceStable'
    >,
    private readonly lookup: TokenLookup,
    private readonly reference: Pick<ReferencePrices, 'convert' | 'inStable'>,
    private readonly options: FillValuationOptions,
  ) {}

  /** The tokens as listed; undefined when either is not a listed token (the relayer holds no inventory of it). */
  tokens(
    originChainId: number,
    inputToken: string,
    destinationChainId: number,
    outputToken: string,
  ): { input: TransferToken; output: TransferToken } | undefined {
    const input = transferToken(this.lookup, originChainId, inputToken);
    const output = transferToken(this.lookup, destinationChainId, outputToken);
    return input && output ? { input, output } : undefined;
  }

  /** The fill's value, or why there is none now (the fill waits). */
  async value(
    input: TransferToken,
    inputAmount: bigint,
    output: TransferToken,
    outputAmount: bigint,
    gasWei: bigint,
  ): Promise<FillValuationResult> {
    // Memory first: a stale market costs no RPC.
    const spotInOutput = this.pricing.convert(inputAmount, input, output);
    const gasInOutput = this.pricing.nativeCostIn(output.chainId, gasWei, output);
    if (spotInOutput === undefined || gasInOutput === undefined) return { kind: 'no-spot-price' };
    const referenceInOutput = await this.reference.convert(inputAmount, input, output);
    if (referenceInOutput === undefined) return { kind: 'no-reference-price' };
    const deviation = deviationBps(spotInOutput, referenceInOutput);
    if (deviation > this.options.maxDeviationBps)
      return { kind: 'price-deviation', spotInOutput, referenceInOutput, deviationBps: deviation };
    const inputInOutput = spotInOutput < referenceInOutput ? spotInOutput : referenceInOutput;
    const profit = inputInOutput - outputAmount - gasInOutput;
    const profitBps = inputInOutput > 0n ? Number((profit * 10_000n) / inputInOutput) : -10_000;
    return {
      kind: 'value',
      value: { inputInOutput, spotInOutput, referenceInOutput, gasInOutput, profit, profitBps },
    };
  }

  /**
   * What `amount` of the token is worth in USD (micro-dollars), for the caps: the larger of its value in the chain's
   * reference stable at the reference price and at spot (a cap must not be slipped under by a depressed pool), one
   * of them when the other is missing; the stable itself counts exactly. undefined without either.
   */
  async usdValue(token: TransferToken, amount: bigint): Promise<bigint | undefined> {
    const listed = this.pricing.referenceStable(token.chainId);
    if (!listed) return undefined;
    const stable = listedTransferToken(token.chainId, listed);
    if (this.pricing.sameAsset(token, stable)) return rescale(amount, token.decimals, USD_DECIMALS);
    const spot = this.pricing.convert(amount, token, stable);
    const reference = (await this.reference.inStable(token, amount))?.amount;
    const larger =
      spot === undefined ? reference : reference === undefined || spot > reference ? spot : reference;
    return larger === undefined ? undefined : rescale(larger, stable.decimals, USD_DECIMALS);
  }

  /**
   * The most a lock may release: the input itself, rescaled to the output's decimals, when both are one asset (the
   * lock-and-release bridge moves an asset to itself only); undefined otherwise.
   */
  sameAsset(a: TransferToken, b: TransferToken): boolean {
    return this.pricing.sameAsset(a, b);
  }

  maxRelease(input: TransferToken, inputAmount: bigint, output: TransferToken): bigint | undefined {
    if (!this.pricing.sameAsset(input, output)) return undefined;
    return rescale(inputAmount, input.decimals, output.decimals);
  }
}
