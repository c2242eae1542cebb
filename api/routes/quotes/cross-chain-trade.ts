import type { ChainRegistry } from '../../../shared/chain/chain-registry';
import type {
  CrossChainProvider,
  CrossChainRequest,
  TransferToken,
} from '../../../shared/bridges/cross-chain-provider';
import type { CrossChainProviders } from '../../../shared/bridges/provider-registry';
import { ValidationError, type ErrorDetail } from '../../../shared/domain/errors';
import type { TokenRecord, TokensRepository } from '../../../shared/store/repositories/tokens-repository';
import { INVALID_BODY } from '../../http/validator';
import { noRoute } from './single-chain-trade';
import type { CrossChainQuoteParams, Fees } from './schemas';
import { tradeAmountIn } from './trade-amount';

export interface CrossChainTradeDeps {
  chains: ChainRegistry;
  tokens: TokensRepository;
  providers: CrossChainProviders;
  protocolFeePips: number;
}

export interface CrossChainTrade {
  request: CrossChainRequest;
  /** The providers that run between the two chains, in the registry's order; never empty. */
  providers: CrossChainProvider[];
}

function transferToken(record: TokenRecord, sentAs: string): TransferToken {
  return {
    chainId: record.chainId,
    address: sentAs,
    symbol: record.symbol,
    decimals: record.decimals,
    native: record.native,
  };
}

/**
 * The checks a cross-chain quote and swap share, in the same order so both answer a bad request alike: both chains
 * enabled (400 on each field), two different chains (400 on `params.toChainId`), the amount within its token's bounds
 * when the source chain lists the token (400); then what no provider can route (422 NO_ROUTE): a source chain that
 * takes no cross-chain transfers (`crossChainSource: false`), a token its chain does not list, a pair of chains no
 * provider runs between.
 */
export async function resolveCrossChainTrade(
  deps: CrossChainTradeDeps,
  params: CrossChainQuoteParams,
  fees: Fees | undefined,
): Promise<CrossChainTrade> {
  const { fromChainId, toChainId } = params;
  const disabled: ErrorDetail[] = [];
  for (const [field, chainId] of [
    ['params.fromChainId', fromChainId],
    ['params.toChainId', toChainId],
  ] as const) {
    if (!deps.chains.isEnabled(chainId)) disabled.push({ field, message: `Chain ${chainId} is not enabled` });
  }
  if (disabled.length > 0) throw new ValidationError(disabled[0]!.message, disabled);
  if (fromChainId === toChainId) {
    throw new ValidationError(INVALID_BODY, [
      {
        field: 'params.toChainId',
        message: 'Must differ from params.fromChainId (a swap on one chain is mode single-chain)',
      },
    ]);
  }
  const [tokenIn, tokenOut] = await Promise.all([
    deps.tokens.find(fromChainId, params.inTokenAddress),
    deps.tokens.find(toChainId, params.outTokenAddress),
  ]);
  const amountIn = tokenIn ? tradeAmountIn(params.amount, tokenIn) : 0n;
  if (!deps.chains.get(fromChainId)!.crossChainSource) throw noRoute();
  if (!tokenIn || !tokenOut) throw noRoute();
  const providers = deps.providers.serving(fromChainId, toChainId);
  if (providers.length === 0) throw noRoute();
  const feeBps = fees?.feeBps ?? 0;
  return {
    request: {
      fromChainId,
      toChainId,
      tokenIn: transferToken(tokenIn, params.inTokenAddress),
      tokenOut: transferToken(tokenOut, params.outTokenAddress),
      amountIn,
      slippage: params.slippage,
      protocolFeePips: deps.protocolFeePips,
      integratorFeeBps: feeBps,
      ...(fees && feeBps > 0 ? { integratorFeeRecipient: fees.feeRecipient } : {}),
    },
    providers,
  };
}
