import { crossChainEntryInterface } from '../contracts';
import { latestBlock } from '../chain-reads';
import type { CrossChainSwap, CrossChainSwapRequest } from '../cross-chain-provider';
import { entryDeadline, entryTransaction } from '../entry-call';
import { intentChain, type IntentDeps } from './intent-deps';
import type { IntentPlan } from './intent-quote';

/** The SpokePool's fillDeadlineBuffer as the devnet deploys it: a fill deadline later than this is refused. */
export const SPOKE_POOL_FILL_DEADLINE_BUFFER = 86_400;

/**
 * The deposit's clocks. quoteTimestamp: the origin's latest block (the SpokePool refuses one from its future).
 * fillDeadline: the destination's clock plus the configured window, since the fill is checked there; never earlier
 * than the origin's clock plus the window nor later than the origin's clock plus the SpokePool's buffer, so the
 * origin accepts it whatever the two devnet clocks say.
 */
export function depositClocks(
  originTime: number,
  destinationTime: number,
  fillDeadlineSeconds: number,
): { quoteTimestamp: number; fillDeadline: number } {
  const wanted = Math.max(originTime, destinationTime) + fillDeadlineSeconds;
  return {
    quoteTimestamp: originTime,
    fillDeadline: Math.min(wanted, originTime + SPOKE_POOL_FILL_DEADLINE_BUFFER),
  };
}

/**
 * CrossChainEntry.depositIntent for the plan: the account is the depositor (refunds go back to it) and the
 * recipient; our relayer is exclusive for the configured seconds; the deposit's outputAmount is the quoted amount,
 * which is exactly what the fill pays.
 */
export async function buildIntentDeposit(
  deps: IntentDeps,
  plan: IntentPlan,
  request: CrossChainSwapRequest,
): Promise<CrossChainSwap | undefined> {
  const origin = intentChain(deps, request.fromChainId);
  const originClient = deps.clients.find(request.fromChainId);
  const destinationClient = deps.clients.find(request.toChainId);
  if (!origin || !originClient || !destinationClient) return undefined;
  const [originHead, destinationHead, deadline] = await Promise.all([
    latestBlock(originClient),
    latestBlock(destinationClient),
    entryDeadline(originClient, request.now),
  ]);
  const clocks = depositClocks(
    originHead.timestamp,
    destinationHead.timestamp,
    deps.settings.fillDeadlineSeconds,
  );
  const data = crossChainEntryInterface().encodeFunctionData('depositIntent', [
    {
      inputToken: plan.inputToken,
      inputAmount: plan.inputAmount,
      outputToken: plan.outputToken,
      outputAmount: plan.quote.amountOut,
      destinationChainId: request.toChainId,
      recipient: request.account,
      exclusiveRelayer: deps.settings.relayerAddress,
      quoteTimestamp: clocks.quoteTimestamp,
      fillDeadline: clocks.fillDeadline,
      exclusivityParameter: deps.settings.exclusivitySeconds,
    },
    plan.fees,
    deadline,
  ]);
  return entryTransaction({
    entry: origin.entry,
    data,
    tokenIn: request.tokenIn,
    amountIn: request.amountIn,
    estimatedGas: plan.quote.estimatedGas,
    amountOut: plan.quote.amountOut,
    minimumReceived: plan.quote.minimumReceived,
  });
}
