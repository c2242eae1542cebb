import type { ChainClient } from '../../../shared/chain/chain-client';
import { ZERO_ADDRESS } from '../../../shared/domain/addresses';
import { ServiceError, ValidationError } from '../../../shared/domain/errors';
import { applyFees, minimumAfterSlippage } from '../../../shared/routing/fees';
import {
  ExternalAggregatorError,
  type ExternalAggregator,
  type ExternalSwap,
} from '../../../shared/routing/aggregators/external-aggregator';
import { ExternalSwapRefused } from '../../../shared/routing/meta-quoter';
import {
  buildPathsSwapTransaction,
  buildSwapTransaction,
  externalPath,
  simulateSwap,
  type BuildSwapInput,
  type SwapTransaction,
} from '../../../shared/routing/swap-calldata';
import { defineRoute, type DocumentedRoute, type RouteDefinition } from '../../http/route-definition';
import { INVALID_BODY } from '../../http/validator';
import { assertFreshMarket } from '../quotes/fresh-market-state';
import {
  GWEI,
  noRoute,
  resolveSingleChainTrade,
  type SingleChainTrade,
  type TradeDeps,
} from '../quotes/single-chain-trade';
import type { Fees } from '../quotes/schemas';
import { CrossChainProviders } from '../../../shared/bridges/provider-registry';
import type { CrossChainRouteDeps } from '../quotes/post-quotes';
import { crossChainSwapError, swapCrossChain, type TransferBuildRecorder } from './cross-chain-swap';
import { swapBody, swapResponse, type SingleChainSwapParams, type SwapRequest } from './schemas';

/** Calldata expires on-chain this long after it is built (the spec's 5 minutes). */
export const SWAP_DEADLINE_SECONDS = 300n;
/**
 * SwapRouter's own gas beside the pools' hops (input pull through the spender, fee transfers, payout), used for
 * `estimatedGas` when the transaction cannot be estimated from the account yet (no balance or allowance).
 */
export const SWAP_ROUTER_OVERHEAD_GAS = 100_000n;

/** POST /swap as documented: served by `swapRoute`, listed in /openapi.json from this very object. */
export const swapEndpoint: DocumentedRoute = {
  method: 'POST',
  path: '/swap',
  auth: 'signed',
  body: swapBody,
  bodyError: INVALID_BODY,
  doc: {
    tag: 'Quotes and swaps',
    summary: 'Unsigned transaction calldata for a quoted route',
    description:
      "Send the same pair and amount as the quote plus the wallet `account` and the quote's `aggregatorId`. The service never broadcasts: sign and send the transaction yourself, after `eth_estimateGas`. `dryRun` is accepted with no effect on single-chain and rejected on cross-chain.\n\n" +
      "Cross-chain: `account` sends the source transaction and receives the output on the destination chain. The transaction is run from `account` before it is returned; calldata that would revert for any reason other than the account's own balance or allowance is refused with `500 CROSS_CHAIN_SWAP_ERROR` (request a new quote). `aggregatorId` must be a cross-chain provider between the two chains (`400` on `params.aggregatorId` listing them); keep `dexHash` for `POST /tx-status`. Approve `contractToApprove` for an ERC-20 input; a native input is sent as `value`. The other errors are those of the cross-chain quote.",
    response: swapResponse,
    errors: [400, 422, 500],
  },
};

export interface SwapDeps extends TradeDeps {
  protocolFeePips: number;
  /** Absent: no provider, so every valid cross-chain swap answers 422 NO_ROUTE. */
  crossChain?: Pick<CrossChainRouteDeps, 'providers'>;
  /** RPC access per chain for the dry run; a chain without a client cannot be swapped on. */
  clients: { find(chainId: number): ChainClient | undefined };
  /** Records the cross-chain swaps built for our bridges (their transfers' events go to the key); absent: none. */
  builds?: TransferBuildRecorder;
}

export interface SingleChainSwap {
  data: string;
  to: string;
  value: string;
  outAmount: string;
  minOutAmount: string;
  estimatedGas: string;
  gasLimit: string;
  contractToApprove: string;
}

const swapError = (message: string, detail?: string): ServiceError =>
  new ServiceError('SWAP_ERROR', 500, message, detail ? [{ message: detail }] : []);

/** Seconds of the chain's latest block, or the wall clock if later: devnets can run ahead with evm_increaseTime. */
async function deadlineOf(client: ChainClient, nowMs: number): Promise<bigint> {
  const block = await client.getBlock('latest');
  const chainTime = BigInt(block?.timestamp ?? 0);
  const wallTime = BigInt(Math.floor(nowMs / 1000));
  return (chainTime > wallTime ? chainTime : wallTime) + SWAP_DEADLINE_SECONDS;
}

/** Gas of the real transaction from the account; the route's estimate plus the router when it cannot run yet. */
async function gasOf(client: ChainClient, tx: SwapTransaction, account: string, fallback: bigint) {
  try {
    return await client.estimateGas({ from: account, to: tx.to, data: tx.data, value: tx.value });
  } catch {
    return fallback;
  }
}

/** The swap slippage percent as whole basis points for an aggregator (rounded down: never looser than asked). */
function slippageBps(slippagePercent: string): number {
  const [whole = '0', fraction = ''] = slippagePercent.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
}

/** What a source contributes to the swap: its gross output and the paths SwapRouter runs. */
interface SourceSwap {
  grossOut: bigint;
  gasEstimate: bigint;
  build(input: Omit<BuildSwapInput, 'splits'>): SwapTransaction;
}

/** Our on-chain source or router, routed again at the latest pool state by the quoted source alone. */
function onChainSwap(
  trade: SingleChainTrade,
  params: SingleChainSwapParams,
  sourceIds: readonly string[],
): SourceSwap {
  const result = trade.engine.quote({
    chainId: params.chainId,
    tokenIn: trade.tokenIn.address,
    tokenOut: trade.tokenOut.address,
    amountIn: trade.amountIn,
    excludeSourceIds: sourceIds.filter((id) => id !== params.aggregatorId),
    gasPriceWei: BigInt(params.gasPrice) * GWEI,
  });
  const best = result?.quotes.find((q) => q.sourceId === params.aggregatorId);
  if (!best) throw noRoute();
  return {
    grossOut: best.amountOut,
    gasEstimate: best.gasEstimate,
    build: (input) => buildSwapTransaction({ ...input, splits: best.splits }),
  };
}

/** An external aggregator's calldata, run by SwapRouter through its external hop (the aggregator pays the router). */
async function externalSwap(
  trade: SingleChainTrade,
  aggregator: ExternalAggregator,
  params: SingleChainSwapParams,
  swapRouter: string,
): Promise<SourceSwap> {
  let swap: ExternalSwap;
  try {
    swap = await trade.quoter.buildExternalSwap(aggregator, {
      chainId: params.chainId,
      tokenIn: trade.tokenIn.address,
      tokenOut: trade.tokenOut.address,
      amountIn: trade.amountIn,
      gasPriceWei: BigInt(params.gasPrice) * GWEI,
      taker: swapRouter,
      slippageBps: slippageBps(params.slippage),
      account: params.account,
    });
  } catch (err) {
    if (err instanceof ExternalAggregatorError && err.kind === 'no-route') throw noRoute();
    if (err instanceof ExternalSwapRefused && err.reason !== 'unusable') throw noRoute();
    if (err instanceof ExternalAggregatorError || err instanceof ExternalSwapRefused) {
      throw swapError(`${aggregator.name} could not build the swap`, err.message);
    }
    throw err;
  }
  const hopOut = trade.engine.routingToken(params.chainId, trade.tokenOut.address);
  return {
    grossOut: swap.amountOut,
    gasEstimate: swap.gasEstimate,
    build: (input) =>
      buildPathsSwapTransaction(input, [externalPath(swap.to, swap.data, hopOut, trade.amountIn)]),
  };
}

async function swapSingleChain(
  deps: SwapDeps,
  params: SingleChainSwapParams,
  fees: Fees | undefined,
  now: number,
): Promise<SingleChainSwap> {
  const { chainId } = params;
  const trade = await resolveSingleChainTrade(deps, params);
  assertFreshMarket(trade.engine, chainId, 'SWAP_ERROR');
  const sourceIds = trade.quoter.sourceIds(chainId);
  if (!sourceIds.includes(params.aggregatorId)) {
    throw new ValidationError(INVALID_BODY, [
      { field: 'params.aggregatorId', message: `Must be one of: ${sourceIds.join(', ')}` },
    ]);
  }
  const contracts = deps.chains.get(chainId)?.contracts;
  const client = deps.clients.find(chainId);
  if (!contracts || !client) throw noRoute();
  const aggregator = trade.quoter.external(chainId, params.aggregatorId);
  const source = aggregator
    ? await externalSwap(trade, aggregator, params, contracts.swapRouter)
    : onChainSwap(trade, params, sourceIds);
  const breakdown = applyFees(source.grossOut, deps.protocolFeePips, fees?.feeBps ?? 0);
  const minOutAmount = minimumAfterSlippage(breakdown.amountOut, params.slippage);
  let tx: SwapTransaction;
  try {
    tx = source.build({
      swapRouter: contracts.swapRouter,
      account: params.account,
      tokenIn: params.inTokenAddress,
      tokenOut: params.outTokenAddress,
      amountIn: trade.amountIn,
      minAmountOut: minOutAmount,
      deadline: await deadlineOf(client, now),
      integratorFeeBps: fees?.feeBps ?? 0,
      integratorFeeRecipient: fees && fees.feeBps > 0 ? fees.feeRecipient : ZERO_ADDRESS,
    });
  } catch (err) {
    if (err instanceof RangeError) throw swapError('Could not build the swap calldata', err.message);
    throw err;
  }
  // Never hand out calldata that would revert for a reason other than the account's own funding.
  const simulation = await simulateSwap(client, tx, params.account);
  if (!simulation.ok && simulation.reason !== 'ALLOWANCE_OR_BALANCE') {
    throw swapError('The swap would revert on-chain', `${simulation.reason}: ${simulation.message}`);
  }
  const fallbackGas = source.gasEstimate + SWAP_ROUTER_OVERHEAD_GAS;
  const estimatedGas = simulation.ok ? await gasOf(client, tx, params.account, fallbackGas) : fallbackGas;
  return {
    data: tx.data,
    to: tx.to,
    value: tx.value.toString(),
    outAmount: breakdown.amountOut.toString(),
    minOutAmount: minOutAmount.toString(),
    estimatedGas: estimatedGas.toString(),
    gasLimit: (estimatedGas * 2n).toString(),
    contractToApprove: contracts.spender,
  };
}

/**
 * POST /swap. Single-chain: calldata for the quoted source's route at the latest pool state, dry-run from the
 * account before answering. Cross-chain: the quoted provider's source transaction, dry-run likewise.
 */
export function swapRoute(deps: SwapDeps & { now: () => number }): RouteDefinition {
  return defineRoute<SwapRequest>({
    ...swapEndpoint,
    async handle({ body, log, auth }) {
      if (body.mode === 'cross-chain') {
        try {
          const providers = deps.crossChain?.providers ?? new CrossChainProviders([]);
          const swap = await swapCrossChain(
            { ...deps, providers },
            body.params,
            body.fees,
            deps.now(),
            auth?.apiKey,
          );
          return { mode: 'cross-chain', swap };
        } catch (err) {
          if (err instanceof ServiceError) throw err;
          log.error({ err }, 'cross-chain swap failed');
          // The cause stays in the log: RPC errors can carry node URLs with credentials.
          throw crossChainSwapError('Could not build the cross-chain swap');
        }
      }
      try {
        const swap = await swapSingleChain(deps, body.params, body.fees, deps.now());
        return { mode: 'single-chain', swap };
      } catch (err) {
        if (err instanceof ServiceError) throw err;
        log.error({ err }, 'swap failed');
        // The cause stays in the log: RPC errors can carry node URLs with credentials.
        throw swapError('Could not build the swap');
      }
    },
  });
}
