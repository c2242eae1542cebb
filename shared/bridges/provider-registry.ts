import type { ChainRegistry } from '../chain/chain-registry';
import type { CrossChainConfig } from '../config/config-schema';
import type { Logger } from '../log/create-logger';
import type { BridgeClients } from './chain-reads';
import type { CrossChainProvider } from './cross-chain-provider';
import { sameDexHash } from './dex-hash';
import { intentChain, type IntentDeps, type IntentRefundRecords } from './intent/intent-deps';
import { IntentProvider } from './intent/intent-provider';
import { createLifiProvider, lifiEnabled } from './lifi/lifi-provider';
import { lockReleaseChain } from './lock-release/lock-release-deps';
import { LockReleaseProvider } from './lock-release/lock-release-provider';
import type { TransferPricing } from './transfer-pricing';

/** The cross-chain providers of this deployment, looked up by `aggregatorId` or by `dexHash`. */
export class CrossChainProviders {
  constructor(private readonly providers: readonly CrossChainProvider[]) {}

  all(): readonly CrossChainProvider[] {
    return this.providers;
  }

  byId(id: string): CrossChainProvider | undefined {
    return this.providers.find((p) => p.id === id);
  }

  /** In any casing: the spec tells clients to send it lowercase, and not every client does. */
  byDexHash(dexHash: string): CrossChainProvider | undefined {
    return this.providers.find((p) => sameDexHash(p.dexHash, dexHash));
  }

  /** The providers that run between the two chains at all (configuration only, no network call). */
  serving(fromChainId: number, toChainId: number): CrossChainProvider[] {
    return this.providers.filter((p) => p.serves(fromChainId, toChainId));
  }
}

export interface ProviderRegistryDeps {
  crossChain: CrossChainConfig;
  chains: ChainRegistry;
  clients: BridgeClients;
  pricing: TransferPricing;
  gasPrices: IntentDeps['gasPrices'];
  /** The keeper's refund records (TransfersRepository), for the intent bridge's REFUND status. */
  refunds?: IntentRefundRecords;
  log?: Logger;
  /** LI.FI's HTTP client (tests replay recorded answers through it). */
  fetch?: typeof fetch;
}

/** Chains that take part in a bridge: both ends of a transfer need it, so one chain alone makes no bridge. */
const atLeastTwo = (chains: ChainRegistry, has: (chainId: number) => boolean): boolean =>
  chains.ids().filter(has).length >= 2;

/**
 * Builds the providers the configuration enables: the intent bridge where chains have a SpokePool and our entry and
 * a relayer address is configured, the lock-and-release bridge where chains have one, LI.FI when its API URL is set.
 * Which pairs each serves is then its own `serves`.
 */
export function buildCrossChainProviders(deps: ProviderRegistryDeps): CrossChainProviders {
  const { crossChain, chains, clients, pricing } = deps;
  const providers: CrossChainProvider[] = [];
  if (crossChain.relayerAddress !== '' && atLeastTwo(chains, (id) => intentChain(deps, id) !== undefined)) {
    providers.push(
      new IntentProvider({
        chains,
        clients,
        pricing,
        gasPrices: deps.gasPrices,
        settings: crossChain,
        refunds: deps.refunds,
      }),
    );
  }
  if (atLeastTwo(chains, (id) => lockReleaseChain(deps, id) !== undefined)) {
    providers.push(new LockReleaseProvider({ chains, clients, pricing, settings: crossChain }));
  }
  if (lifiEnabled(crossChain.lifi)) {
    providers.push(createLifiProvider(crossChain.lifi, { fetch: deps.fetch, logger: deps.log }));
  }
  return new CrossChainProviders(providers);
}
