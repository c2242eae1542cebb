import { minimumAfterSlippage } from '../../routing/fees';
import { erc20Balance } from '../chain-reads';
import type { CrossChainQuote, CrossChainRequest } from '../cross-chain-provider';
import { bridgedToken, sourceAmounts, type EntryFees } from '../entry-call';
import { bridgeRoute, isNativeToken } from '../route-assets';
import { transferSeconds } from '../transfer-time';
import { INTENT_DISPLAY_NAME, INTENT_PROVIDER_ID, intentChain, type IntentDeps } from './intent-deps';

/** Gas of the relayer's fillRelay on the destination, priced into the output (a fill of Across V3 and an unwrap). */
export const FILL_GAS = 150_000n;
/** Gas of CrossChainEntry.depositIntent (input pull, fee transfers, SpokePool deposit) before it can be estimated. */
export const DEPOSIT_INTENT_GAS = 250_000n;

const BPS = 10_000n;

/** A quote and the deposit it stands for. */
export interface IntentPlan {
  quote: CrossChainQuote;
  fees: EntryFees;
  /** The SpokePool deposit: ERC-20s on both sides (the wrapped native for the native coin). */
  inputToken: string;
  inputAmount: bigint;
  outputToken: string;
}

/**
 * The intent bridge's quote: the input after the service's fees valued on the origin, paid out on the destination
 * in the output token less the relayer's fee and the fill's gas. Our relayer is the only one on these chains, so
 * it must hold the output already (its inventory), else the amount is not quoted. The output token is delivered
 * as is, except the destination's wrapped native, which a fill always unwraps for an account: that token is not
 * served (the native coin is).
 */
export async function planIntent(
  deps: IntentDeps,
  request: CrossChainRequest,
): Promise<IntentPlan | undefined> {
  const origin = intentChain(deps, request.fromChainId);
  const destination = intentChain(deps, request.toChainId);
  const client = deps.clients.find(request.toChainId);
  if (!origin || !destination || !client || deps.settings.relayerAddress === '') return undefined;
  const { tokenIn, tokenOut } = request;
  const outputToken = bridgedToken(tokenOut, destination.config);
  if (
    !isNativeToken(tokenOut) &&
    outputToken.toLowerCase() === destination.config.wrappedNative.toLowerCase()
  ) {
    return undefined;
  }
  const { fees, bridged } = sourceAmounts(request);
  if (bridged <= 0n) return undefined;
  const gross = deps.pricing.convert(bridged, tokenIn, tokenOut);
  if (gross === undefined || gross === 0n) return undefined;
  const relayerFee = (gross * BigInt(deps.settings.relayerFeeBps) + BPS - 1n) / BPS;
  const gasPrice = await deps.gasPrices.effectiveGasPrice(request.toChainId);
  const fillGas = deps.pricing.nativeCostIn(request.toChainId, FILL_GAS * gasPrice, tokenOut);
  if (fillGas === undefined) return undefined;
  const amountOut = gross - relayerFee - fillGas;
  if (amountOut <= 0n) return undefined;
  const inventory = await erc20Balance(client, outputToken, deps.settings.relayerAddress);
  if (inventory < amountOut) return undefined;
  const cost = deps.pricing.usdValue(relayerFee + fillGas, tokenOut);
  const inputToken = bridgedToken(tokenIn, origin.config);
  return {
    quote: {
      providerId: INTENT_PROVIDER_ID,
      bridgeName: INTENT_DISPLAY_NAME,
      amountOut,
      minimumReceived: minimumAfterSlippage(amountOut, request.slippage),
      protocolFeeAmount: fees.protocolFee,
      integratorFeeAmount: fees.integratorFee,
      estimatedGas: DEPOSIT_INTENT_GAS,
      estimateCostInUSD: cost === undefined ? null : cost.toFixed(6),
      estimatedSeconds: transferSeconds(origin.config, destination.config, deps.settings.intentConfirmations),
      route: bridgeRoute(request, inputToken, outputToken),
    },
    fees,
    inputToken,
    inputAmount: bridged,
    outputToken,
  };
}
