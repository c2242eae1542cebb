import { isNativeAddress } from '../domain/addresses';
import type { CrossChainRequest, RouteAsset, TransferToken } from './cross-chain-provider';

export const isNativeToken = (token: TransferToken): boolean =>
  token.native || isNativeAddress(token.address);

function asset(token: TransferToken, address = token.address, symbol = token.symbol): RouteAsset {
  return { chainId: token.chainId, address, symbol, decimals: token.decimals };
}

/**
 * The spec's `middlewareRoute` of a devnet bridge: what the account sends, the ERC-20 the bridge moves in its
 * place (the wrapped native for a native coin, same decimals), and what arrives.
 */
export function bridgeRoute(
  request: CrossChainRequest,
  inputToken: string,
  outputToken: string,
): RouteAsset[] {
  const { tokenIn, tokenOut } = request;
  const route = [asset(tokenIn)];
  if (isNativeToken(tokenIn)) route.push(asset(tokenIn, inputToken, `W${tokenIn.symbol}`));
  if (isNativeToken(tokenOut)) route.push(asset(tokenOut, outputToken, `W${tokenOut.symbol}`));
  route.push(asset(tokenOut));
  return route;
}
