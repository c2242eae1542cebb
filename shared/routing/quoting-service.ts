/**
 * The quote engine with its data kept live: for every chain with contracts and a client, the liquidity
 * sources discover the pools of the chain's listed tokens, then a block follower refreshes the
 * PoolStateCache at each new block. Quotes read that cache only. Until a chain's first refresh completes its
 * quotes find no route.
 */
import type { ChainClients } from '../chain/chain-clients';
import type { ChainConfig, StalenessConfig } from '../config/config-schema';
import type { Logger } from '../log/create-logger';
import { NATIVE_TOKEN_KEY } from '../domain/addresses';
import { connectorsOf, DEFAULT_STALENESS, QuoteEngine, type QuoteChain } from './quote-engine';
import { BlockFollower } from './sources/block-follower';
import { PoolStateCache } from './sources/pool-state-cache';
import { devnetSourcesConfig, SourceRegistry } from './sources/source-registry';

export interface QuotingTokens {
  /** The chain's listed tokens (GET /tokens), native included. */
  tokensOf(chainId: number): readonly { address: string; symbol: string }[];
}

export interface QuotingOptions {
  chains: readonly ChainConfig[];
  clients: ChainClients;
  tokens: QuotingTokens;
  log: Logger;
  pollMs?: number;
  /** Default bounds of every chain; a chain entry's staleAfterSeconds/staleAfterBlocks win. */
  staleness?: StalenessConfig;
  /** The clock the state's age is measured on (a simulation run's chain clock); default the wall clock. */
  now?: () => number;
  /** MAX_PRICE_IMPACT_BPS (default DEFAULT_MAX_PRICE_IMPACT_BPS). */
  maxPriceImpactBps?: number;
}

export interface QuotingService {
  engine: QuoteEngine;
  cache: PoolStateCache;
  /**
   * Reads the chain's head and refreshes its pools now (after a poll in flight), for a driver that mines the blocks
   * itself; resolves once the state is stored. A chain still discovering its pools is not refreshed.
   */
  followNow(chainId: number): Promise<void>;
  stop(): Promise<void>;
}

const DISCOVERY_RETRY_FIRST_MS = 1_000;
const DISCOVERY_RETRY_MAX_MS = 30_000;

/** Waits `ms`, or less when `signal` aborts (so stopping never waits out a back-off). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export function startQuoting(opts: QuotingOptions): QuotingService {
  const cache = new PoolStateCache(opts.now);
  const stopping = new AbortController();
  const quoteChains: QuoteChain[] = [];
  const followers = new Map<number, BlockFollower>();
  const startups: Promise<void>[] = [];
  const discovered = new Set<number>();
  let stopped = false;
  for (const chain of opts.chains) {
    const client = opts.clients.find(chain.chainId);
    if (!chain.contracts || !client) continue;
    // The configured contracts are the devnet world's (embedded mode) or a deployment's with the same shape.
    const registry = SourceRegistry.fromConfig(
      client,
      devnetSourcesConfig({ chainId: chain.chainId, contracts: chain.contracts }),
    );
    const tokens = opts.tokens.tokensOf(chain.chainId);
    quoteChains.push({
      chainId: chain.chainId,
      wrappedNative: chain.wrappedNative,
      connectors: connectorsOf(chain.wrappedNative, tokens),
      sources: registry.sources.map((s) => ({ id: s.id, name: s.name })),
      staleness: {
        afterSeconds:
          chain.staleAfterSeconds ?? opts.staleness?.afterSeconds ?? DEFAULT_STALENESS.afterSeconds,
        afterBlocks: chain.staleAfterBlocks ?? opts.staleness?.afterBlocks ?? DEFAULT_STALENESS.afterBlocks,
      },
    });
    const follower = new BlockFollower({
      client,
      registry,
      cache,
      pollMs: opts.pollMs,
      log: opts.log,
    });
    followers.set(chain.chainId, follower);
    const addresses = [
      ...new Set(
        [chain.wrappedNative, ...tokens.map((t) => t.address)]
          .map((a) => a.toLowerCase())
          .filter((a) => a !== NATIVE_TOKEN_KEY),
      ),
    ];
    // An RPC outage at start-up must not leave a chain unquotable until a restart: retry with back-off.
    const discover = async (): Promise<void> => {
      for (let wait = DISCOVERY_RETRY_FIRST_MS; !stopped; wait = Math.min(wait * 2, DISCOVERY_RETRY_MAX_MS)) {
        try {
          await registry.discoverAll(addresses);
          discovered.add(chain.chainId);
          if (!stopped) follower.start();
          return;
        } catch (err) {
          opts.log.error(
            { chainId: chain.chainId, retryInMs: wait },
            `pool discovery failed, chain cannot be quoted yet: ${err instanceof Error ? err.message : String(err)}`,
          );
          await pause(wait, stopping.signal);
        }
      }
    };
    startups.push(discover());
  }
  return {
    engine: new QuoteEngine(cache, quoteChains, { maxPriceImpactBps: opts.maxPriceImpactBps }),
    cache,
    async followNow(chainId) {
      const follower = followers.get(chainId);
      if (follower && discovered.has(chainId) && !stopped) await follower.pollNow();
    },
    async stop() {
      stopped = true;
      stopping.abort();
      await Promise.all(startups);
      await Promise.all([...followers.values()].map((f) => f.stop()));
    },
  };
}
