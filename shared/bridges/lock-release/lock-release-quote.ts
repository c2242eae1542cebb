import { minimumAfterSlippage } from '../../routing/fees';
import { freeLiquidity } from './bridge-reads';
import type { CrossChainQuote, CrossChainRequest } from '../cross-chain-provider';
import { bridgedToken, sourceAmounts, type EntryFees } from '../entry-call';
import { bridgeRoute, isNativeToken } from '../route-assets';
import { rescale } from '../transfer-pricing';
import { transferSeconds } from '../transfer-time';
import {
  LOCK_RELEASE_DISPLAY_NAME,
  LOCK_RELEASE_PROVIDER_ID,
  lockReleaseChain,
  type LockReleaseDeps,
} from './lock-release-deps';

/** Gas of CrossChainEntry.lock (input pull, fee transfers, the bridge's lock) before it can be estimated. */
export const LOCK_GAS = 200_000n;

const BPS = 10_000n;

/** A quote and the lock it stands for. */
export interface LockPlan {
  quote: CrossChainQuote;
  fees: EntryFees;
  inputToken: string;
  inputAmount: bigint;
  outputToken: string;
}

/**
 * The lock-and-release bridge moves an asset to itself only (USDC to USDC, ether to ether in any wrapping): the
 * output is the input after the service's fees less the bridge's fee, in the output token's decimals, released from
 * the destination bridge's own liquidity, which must cover it. As for the intent bridge, the destination's wrapped
 * native arrives unwrapped for an account, so that ERC-20 is not served as output (its native coin is).
 */
export async function planLock(
  deps: LockReleaseDeps,
  request: CrossChainRequest,
): Promise<LockPlan | undefined> {
  const origin = lockReleaseChain(deps, request.fromChainId);
  const destination = lockReleaseChain(deps, request.toChainId);
  const client = deps.clients.find(request.toChainId);
  if (!origin?.entry || !destination || !client) return undefined;
  const { tokenIn, tokenOut } = request;
  if (!deps.pricing.sameAsset(tokenIn, tokenOut)) return undefined;
  const outputToken = bridgedToken(tokenOut, destination.config);
  if (
    !isNativeToken(tokenOut) &&
    outputToken.toLowerCase() === destination.config.wrappedNative.toLowerCase()
  ) {
    return undefined;
  }
  const { fees, bridged } = sourceAmounts(request);
  const bridgeFee = (bridged * BigInt(deps.settings.lockReleaseFeeBps) + BPS - 1n) / BPS;
  const amountOut = rescale(bridged - bridgeFee, tokenIn.decimals, tokenOut.decimals);
  if (bridged <= 0n || amountOut <= 0n) return undefined;
  const liquidity = await freeLiquidity(client, destination.bridge, outputToken);
  if (liquidity < amountOut) return undefined;
  const cost = deps.pricing.usdValue(bridgeFee, tokenIn);
  const inputToken = bridgedToken(tokenIn, origin.config);
  return {
    quote: {
      providerId: LOCK_RELEASE_PROVIDER_ID,
      bridgeName: LOCK_RELEASE_DISPLAY_NAME,
      amountOut,
      minimumReceived: minimumAfterSlippage(amountOut, request.slippage),
      protocolFeeAmount: fees.protocolFee,
      integratorFeeAmount: fees.integratorFee,
      estimatedGas: LOCK_GAS,
      estimateCostInUSD: cost === undefined ? null : cost.toFixed(6),
      // The lock waits its confirmations, then the keeper's acceptance on the origin waits as many again.
      estimatedSeconds: transferSeconds(
        origin.config,
        destination.config,
        2 * deps.settings.lockReleaseConfirmations,
      ),
      route: bridgeRoute(request, inputToken, outputToken),
    },
    fees,
    inputToken,
    inputAmount: bridged,
    outputToken,
  };
}
