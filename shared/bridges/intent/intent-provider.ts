import type {
  CrossChainProvider,
  CrossChainQuote,
  CrossChainRequest,
  CrossChainSwap,
  CrossChainSwapRequest,
  TransferStatusReport,
} from '../cross-chain-provider';
import { crossChainDexHash } from '../dex-hash';
import { buildIntentDeposit } from './intent-deposit';
import { INTENT_PROVIDER_ID, intentChain, type IntentDeps } from './intent-deps';
import { planIntent } from './intent-quote';
import { intentStatus } from './intent-status';

/**
 * `tas-intent`: Across V3 SpokePools on the devnet chains with our keeper as the relayer. The account deposits
 * through our CrossChainEntry (fees in the source token), the relayer fills from its inventory on the destination
 * and is repaid on the origin; an unfilled deposit is refunded after its fill deadline.
 */
export class IntentProvider implements CrossChainProvider {
  readonly id = INTENT_PROVIDER_ID;
  readonly dexHash = crossChainDexHash(INTENT_PROVIDER_ID);

  constructor(private readonly deps: IntentDeps) {}

  serves(fromChainId: number, toChainId: number): boolean {
    return (
      fromChainId !== toChainId &&
      this.deps.settings.relayerAddress !== '' &&
      intentChain(this.deps, fromChainId) !== undefined &&
      intentChain(this.deps, toChainId) !== undefined &&
      this.deps.clients.find(fromChainId) !== undefined &&
      this.deps.clients.find(toChainId) !== undefined
    );
  }

  async quote(request: CrossChainRequest): Promise<CrossChainQuote | undefined> {
    if (!this.serves(request.fromChainId, request.toChainId)) return undefined;
    return (await planIntent(this.deps, request))?.quote;
  }

  async buildSwap(request: CrossChainSwapRequest): Promise<CrossChainSwap | undefined> {
    if (!this.serves(request.fromChainId, request.toChainId)) return undefined;
    const plan = await planIntent(this.deps, request);
    return plan ? buildIntentDeposit(this.deps, plan, request) : undefined;
  }

  status(query: { hash: string; chainId: number }): Promise<TransferStatusReport> {
    return intentStatus(this.deps, query);
  }
}
