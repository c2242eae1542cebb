import type { ChainRegistry } from '../../chain/chain-registry';
import type { ChainConfig, CrossChainConfig } from '../../config/config-schema';
import type { BridgeClients } from '../chain-reads';
import type { TransferPricing } from '../transfer-pricing';

export const LOCK_RELEASE_PROVIDER_ID = 'tas-canonical';
export const LOCK_RELEASE_DISPLAY_NAME = 'TAS Lock-Release Bridge';

export interface LockReleaseDeps {
  chains: ChainRegistry;
  clients: BridgeClients;
  pricing: TransferPricing;
  settings: Pick<CrossChainConfig, 'lockReleaseFeeBps' | 'lockReleaseConfirmations'>;
}

/** A chain's lock-and-release bridge, and our entry in front of it when the chain has one (origins need it). */
export interface LockReleaseChain {
  config: ChainConfig;
  bridge: string;
  entry: string | undefined;
}

export function lockReleaseChain(
  deps: Pick<LockReleaseDeps, 'chains'>,
  chainId: number,
): LockReleaseChain | undefined {
  const config = deps.chains.get(chainId);
  const bridge = config?.contracts?.lockReleaseBridge;
  if (!config || !bridge) return undefined;
  return { config, bridge, entry: config.contracts?.crossChainEntry };
}
