import type { TransferToken } from '../../shared/bridges/cross-chain-provider';
import { rescale, type TransferPricing } from '../../shared/bridges/transfer-pricing';
import type { PriceListToken } from '../../shared/routing/prices/usd-prices';

/** The listed token of a chain by address, as the keeper's Prices knows it. */
export type TokenLookup = (chainId: number, address: string) => PriceListToken | undefined;

/** What a fill is worth to the relayer, in base units of the output token on the destination. */
export interface FillValue {
  /** The input (repaid on the origin) valued in the output token. */
  inputInOutput: bigint;
  /** The destination gas of the fill, valued in the output token. */
  gasInOutput: bigint;
  /** inputInOutput − outputAmount − gasInOutput (negative: a loss). */
  profit: bigint;
  /** profit in basis points of inputInOutput. */
  profitBps: number;
}

function transferToken(lookup: TokenLookup, chainId: number, address: string): TransferToken | undefined {
  const listed = lookup(chainId, address);
  if (!listed) return undefined;
  return {
    chainId,
    address: listed.address,
    symbol: listed.symbol,
    decimals: listed.decimals,
    native: false,
  };
}

/**
 * Values fills the way the quote priced them (TransferPricing): the input on the origin and the output on the
 * destination through each chain's routed prices, the destination gas in the output token. Memory only, no RPC.
 */
export class FillValuation {
  constructor(
    private readonly pricing: Pick<TransferPricing, 'convert' | 'nativeCostIn' | 'sameAsset'>,
    private readonly lookup: TokenLookup,
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

  /** undefined when a price is missing now (the market is stale or has no route): the fill waits. */
  value(
    input: TransferToken,
    inputAmount: bigint,
    output: TransferToken,
    outputAmount: bigint,
    gasWei: bigint,
  ): FillValue | undefined {
    const inputInOutput = this.pricing.convert(inputAmount, input, output);
    const gasInOutput = this.pricing.nativeCostIn(output.chainId, gasWei, output);
    if (inputInOutput === undefined || gasInOutput === undefined) return undefined;
    const profit = inputInOutput - outputAmount - gasInOutput;
    const profitBps = inputInOutput > 0n ? Number((profit * 10_000n) / inputInOutput) : -10_000;
    return { inputInOutput, gasInOutput, profit, profitBps };
  }

  /**
   * The most a lock may release: the input itself, rescaled to the output's decimals, when both are one asset (the
   * lock-and-release bridge moves an asset to itself only); undefined otherwise.
   */
  maxRelease(input: TransferToken, inputAmount: bigint, output: TransferToken): bigint | undefined {
    if (!this.pricing.sameAsset(input, output)) return undefined;
    return rescale(inputAmount, input.decimals, output.decimals);
  }
}
