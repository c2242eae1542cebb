import type { ManifestChain } from '../devnet/manifest';
import type { QuoteEngine } from '../shared/routing/quote-engine';
import type { ReferencePricesRepository } from '../shared/store/repositories/reference-prices-repository';

/** A trade that must quote on a chain before the service calls itself ready. */
export interface QuoteProbe {
  chainId: number;
  tokenIn: { symbol: string; address: string; decimals: number };
  tokenOut: { symbol: string; address: string; decimals: number };
}

export interface QuotingDeps {
  engine: Pick<QuoteEngine, 'freshness' | 'quote'>;
  referencePrices: Pick<ReferencePricesRepository, 'findPair'>;
}

const POLL_MS = 50;
const QUOTE_TIMEOUT_MS = 120_000;
const STABLES = ['USDC', 'USDT', 'DAI'];

/** Per devnet chain: one unit of the wrapped native for the first stablecoin listed. */
export function devnetProbes(chains: readonly ManifestChain[]): QuoteProbe[] {
  return chains.flatMap((chain) => {
    const wrapped = chain.tokens.find((t) => t.address === chain.contracts.weth);
    const stable = STABLES.map((s) => chain.tokens.find((t) => t.symbol === s)).find(Boolean);
    return wrapped && stable ? [{ chainId: chain.chainId, tokenIn: wrapped, tokenOut: stable }] : [];
  });
}

/** What a chain still lacks before a client's quote and limit order on it succeed; undefined when nothing. */
export async function missingFor(deps: QuotingDeps, probe: QuoteProbe): Promise<string | undefined> {
  const freshness = deps.engine.freshness(probe.chainId);
  if (freshness.stale) return `market state ${freshness.reason ?? 'stale'}`;
  const quoted = deps.engine.quote({
    chainId: probe.chainId,
    tokenIn: probe.tokenIn.address,
    tokenOut: probe.tokenOut.address,
    amountIn: 10n ** BigInt(probe.tokenIn.decimals),
    gasPriceWei: 0n,
  });
  if (!quoted) return `no route ${probe.tokenIn.symbol}->${probe.tokenOut.symbol}`;
  const price = await deps.referencePrices.findPair(
    probe.chainId,
    probe.tokenIn.symbol,
    probe.tokenOut.symbol,
  );
  return price ? undefined : 'reference prices not published';
}

/**
 * Resolves once every probe quotes and its pair has a reference price: a quote or a limit order sent right
 * after is served. Reports each chain as it gets there; fails naming what each late chain still lacks.
 */
export async function waitUntilQuoting(
  deps: QuotingDeps,
  probes: readonly QuoteProbe[],
  onChainReady: (chainId: number) => void,
  timeoutMs = QUOTE_TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const waiting = new Map(probes.map((p) => [p.chainId, p]));
  const lacking = new Map<number, string>();
  while (waiting.size > 0) {
    for (const [chainId, probe] of waiting) {
      const missing = await missingFor(deps, probe);
      if (missing) lacking.set(chainId, missing);
      else {
        waiting.delete(chainId);
        onChainReady(chainId);
      }
    }
    if (waiting.size === 0) return;
    if (Date.now() > deadline) {
      const late = [...waiting.keys()].map((id) => `chain ${id}: ${lacking.get(id) ?? 'not checked'}`);
      throw new Error(`not quoting after ${timeoutMs / 1000} s (${late.join('; ')})`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
