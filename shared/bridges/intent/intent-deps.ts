import type { ChainRegistry } from '../../chain/chain-registry';
import type { ChainConfig, CrossChainConfig } from '../../config/config-schema';
import type { BridgeClients } from '../chain-reads';
import type { TransferPricing } from '../transfer-pricing';

export const INTENT_PROVIDER_ID = 'tas-intent';
export const INTENT_DISPLAY_NAME = 'TAS Intents (Across V3)';

export type IntentSettings = Pick<
  CrossChainConfig,
  'relayerAddress' | 'fillDeadlineSeconds' | 'exclusivitySeconds' | 'relayerFeeBps' | 'intentConfirmations'
>;

/** The keeper's record of a deposit's refund leaf (TransfersRepository.findByDeposit). */
export interface IntentRefundRecords {
  findByDeposit(
    provider: 'intent',
    originChainId: number,
    depositId: string,
  ): Promise<
    { refund: { rootBundleId: number; leafId: number; txHash: string | null } | null } | null | undefined
  >;
}

export interface IntentDeps {
  chains: ChainRegistry;
  clients: BridgeClients;
  pricing: TransferPricing;
  /** The destination's gas price for the fill's cost (GasPriceReader). */
  gasPrices: { effectiveGasPrice(chainId: number): Promise<bigint> };
  settings: IntentSettings;
  /** For refunds; absent: an expired deposit stays REFUND_PENDING. */
  refunds?: IntentRefundRecords;
}

/** A chain's intent bridge: its SpokePool and our entry in front of it. */
export interface IntentChain {
  config: ChainConfig;
  spokePool: string;
  entry: string;
}

export function intentChain(deps: Pick<IntentDeps, 'chains'>, chainId: number): IntentChain | undefined {
  const config = deps.chains.get(chainId);
  const spokePool = config?.contracts?.spokePool;
  const entry = config?.contracts?.crossChainEntry;
  if (!config || !spokePool || !entry) return undefined;
  return { config, spokePool, entry };
}
