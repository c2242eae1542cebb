import { crossChainEntryInterface } from '../contracts';
import type {
  CrossChainProvider,
  CrossChainQuote,
  CrossChainRequest,
  CrossChainSwap,
  CrossChainSwapRequest,
  TransferStatusReport,
} from '../cross-chain-provider';
import { crossChainDexHash } from '../dex-hash';
import { entryDeadline, entryTransaction } from '../entry-call';
import { LOCK_RELEASE_PROVIDER_ID, lockReleaseChain, type LockReleaseDeps } from './lock-release-deps';
import { planLock, type LockPlan } from './lock-release-quote';
import { lockReleaseStatus } from './lock-release-status';

/**
 * `tas-canonical`: our LockReleaseBridge. The account locks through our CrossChainEntry (fees in the source token);
 * the keeper relays the Locked message after its confirmations and the destination bridge releases the same asset
 * from its liquidity: slower than the intent bridge, and cheaper (no relayer capital, no destination gas priced in).
 */
export class LockReleaseProvider implements CrossChainProvider {
  readonly id = LOCK_RELEASE_PROVIDER_ID;
  readonly dexHash = crossChainDexHash(LOCK_RELEASE_PROVIDER_ID);

  constructor(private readonly deps: LockReleaseDeps) {}

  serves(fromChainId: number, toChainId: number): boolean {
    return (
      fromChainId !== toChainId &&
      lockReleaseChain(this.deps, fromChainId)?.entry !== undefined &&
      lockReleaseChain(this.deps, toChainId) !== undefined &&
      this.deps.clients.find(fromChainId) !== undefined &&
      this.deps.clients.find(toChainId) !== undefined
    );
  }

  async quote(request: CrossChainRequest): Promise<CrossChainQuote | undefined> {
    if (!this.serves(request.fromChainId, request.toChainId)) return undefined;
    return (await planLock(this.deps, request))?.quote;
  }

  async buildSwap(request: CrossChainSwapRequest): Promise<CrossChainSwap | undefined> {
    if (!this.serves(request.fromChainId, request.toChainId)) return undefined;
    const plan = await planLock(this.deps, request);
    return plan ? this.lockTransaction(plan, request) : undefined;
  }

  status(query: { hash: string; chainId: number }): Promise<TransferStatusReport> {
    return lockReleaseStatus(this.deps, query);
  }

  /** CrossChainEntry.lock for the plan: the account is the depositor and the recipient. */
  private async lockTransaction(
    plan: LockPlan,
    request: CrossChainSwapRequest,
  ): Promise<CrossChainSwap | undefined> {
    const entry = lockReleaseChain(this.deps, request.fromChainId)?.entry;
    const client = this.deps.clients.find(request.fromChainId);
    if (!entry || !client) return undefined;
    const data = crossChainEntryInterface().encodeFunctionData('lock', [
      {
        inputToken: plan.inputToken,
        inputAmount: plan.inputAmount,
        outputToken: plan.outputToken,
        outputAmount: plan.quote.amountOut,
        destinationChainId: request.toChainId,
        recipient: request.account,
      },
      plan.fees,
      await entryDeadline(client, request.now),
    ]);
    return entryTransaction({
      entry,
      data,
      tokenIn: request.tokenIn,
      amountIn: request.amountIn,
      estimatedGas: plan.quote.estimatedGas,
      amountOut: plan.quote.amountOut,
      minimumReceived: plan.quote.minimumReceived,
    });
  }
}
