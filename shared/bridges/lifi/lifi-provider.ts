/**
 * LI.FI as a cross-chain provider for real networks: quotes and source transactions from GET /v1/quote, transfer
 * status from GET /v1/status. LI.FI picks the bridge; we pass our fees as its integrator fee and check that what it
 * answers is what we asked before handing anything to an account.
 */
import type { LifiConfig } from '../../config/config-schema';
import { ZERO_ADDRESS } from '../../domain/addresses';
import type { Logger } from '../../log/create-logger';
import {
  NoTransferStatus,
  type CrossChainProvider,
  type CrossChainQuote,
  type CrossChainRequest,
  type CrossChainSwap,
  type RouteAsset,
  type TransferStatusReport,
  type TransferToken,
} from '../cross-chain-provider';
import { feeFraction, percentToFraction, sumDecimals } from './lifi-amounts';
import { createLifiClient } from './lifi-client';
import { crossChainDexHash } from '../dex-hash';
import { LifiError } from './lifi-error';
import type { LifiStatus, LifiStep, LifiToken } from './lifi-responses';

export const LIFI_PROVIDER_ID = 'lifi';

/**
 * `fromAddress` of a quote asked before any account is known (LI.FI requires one). The dead address holds some of
 * most tokens, so tools that simulate the sender's balance still quote; buildSwap always asks again with the account.
 */
export const LIFI_QUOTE_ADDRESS = '0x000000000000000000000000000000000000dEaD';

/** Addresses LI.FI may use for a chain's native coin: the zero address (its convention), the 0xeeee… pseudo-address. */
const NATIVE_ALIASES = new Set([ZERO_ADDRESS, '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee']);
/** LI.FI has listed Polygon's coin under its ERC-20 alias 0x…1010. */
const POLYGON_NATIVE_ALIAS = '0x0000000000000000000000000000000000001010';
const POLYGON_CHAIN_ID = 137;

export interface LifiProviderDeps {
  /** Replaces the global fetch (tests, a proxy agent). */
  fetch?: typeof fetch;
  logger?: Logger;
  /** Overrides LIFI_QUOTE_ADDRESS. */
  quoteAddress?: string;
}

/** Whether the operator configured LI.FI at all (LIFI_API_URL set); the registry builds the provider only then. */
export const lifiEnabled = (config: LifiConfig): boolean => config.apiUrl !== '';

export function createLifiProvider(config: LifiConfig, deps: LifiProviderDeps = {}): CrossChainProvider {
  if (!lifiEnabled(config)) throw new RangeError('LI.FI needs an API URL (LIFI_API_URL)');
  const client = createLifiClient({
    apiUrl: config.apiUrl,
    apiKey: config.apiKey,
    timeoutMs: config.timeoutMs,
    fetch: deps.fetch,
    logger: deps.logger,
  });
  const quoteAddress = deps.quoteAddress ?? LIFI_QUOTE_ADDRESS;

  /** The step LI.FI quotes for the request; undefined when it has no route. */
  async function step(
    request: CrossChainRequest,
    account: string | undefined,
  ): Promise<LifiStep | undefined> {
    try {
      const answer = await client.getQuote({
        fromChain: request.fromChainId,
        toChain: request.toChainId,
        fromToken: lifiTokenAddress(request.tokenIn),
        toToken: lifiTokenAddress(request.tokenOut),
        fromAmount: request.amountIn,
        fromAddress: account ?? quoteAddress,
        toAddress: account,
        slippage: percentToFraction(request.slippage),
        integrator: config.integrator,
        // Our protocol fee and the integrator's margin, both taken by LI.FI from the input as its integrator fee.
        // LI.FI credits that fee to the integrator account named by `integrator` (its fee wallet configured in the
        // LI.FI portal); the request's feeRecipient is not paid on-chain on this route, the operator settles it.
        fee: feeFraction(request.protocolFeePips, request.integratorFeeBps) ?? undefined,
        // The api ranks providers by output: ask LI.FI for its best output, not its fastest route.
        order: 'CHEAPEST',
      });
      checkStepAnswers(answer, request);
      return answer;
    } catch (error) {
      if (error instanceof LifiError && error.kind === 'no-route') return undefined;
      throw error;
    }
  }

  return {
    id: LIFI_PROVIDER_ID,
    dexHash: crossChainDexHash(LIFI_PROVIDER_ID),

    // LI.FI decides which chains it connects; asking it is the only way to know.
    serves: (fromChainId, toChainId) => fromChainId !== toChainId,

    async quote(request) {
      const answer = await step(request, undefined);
      return answer && toQuote(answer, request);
    },

    async buildSwap(request) {
      const answer = await step(request, request.account);
      return answer && toSwap(answer, request, request.account);
    },

    async status(query) {
      let answer: LifiStatus;
      try {
        answer = await client.getStatus({ txHash: query.hash, fromChain: query.chainId });
      } catch (error) {
        if (!(error instanceof LifiError)) throw error;
        const message =
          error.kind === 'no-route' ? 'LI.FI does not know this transaction yet' : error.message;
        throw Object.assign(new NoTransferStatus(message), { cause: error });
      }
      if (answer.status === 'NOT_FOUND')
        throw new NoTransferStatus('LI.FI does not know this transaction yet');
      return toStatusReport(answer, query.chainId);
    },
  };
}

/** LI.FI names a native coin by the zero address; ERC-20s by their address as the request sent it. */
function lifiTokenAddress(token: TransferToken): string {
  return token.native ? ZERO_ADDRESS : token.address;
}

function sameToken(answered: LifiToken, requested: TransferToken): boolean {
  const address = answered.address.toLowerCase();
  const addressMatches = requested.native
    ? NATIVE_ALIASES.has(address) ||
      (requested.chainId === POLYGON_CHAIN_ID && address === POLYGON_NATIVE_ALIAS)
    : address === requested.address.toLowerCase();
  return addressMatches && answered.chainId === requested.chainId && answered.decimals === requested.decimals;
}

/**
 * A quote for another pair, amount or decimals would put wrong numbers in front of the account (and the calldata
 * would move something else): such an answer is a bad response, not a route.
 */
function checkStepAnswers(step: LifiStep, request: CrossChainRequest): void {
  const problems: string[] = [];
  if (step.action.fromChainId !== request.fromChainId) problems.push('fromChainId');
  if (step.action.toChainId !== request.toChainId) problems.push('toChainId');
  if (!sameToken(step.action.fromToken, request.tokenIn)) problems.push('fromToken');
  if (!sameToken(step.action.toToken, request.tokenOut)) problems.push('toToken');
  if (step.action.fromAmount !== request.amountIn || step.estimate.fromAmount !== request.amountIn) {
    problems.push('fromAmount');
  }
  if (step.estimate.toAmountMin > step.estimate.toAmount) problems.push('toAmountMin above toAmount');
  if (problems.length > 0) {
    throw new LifiError('bad-response', `LI.FI quote does not match the request: ${problems.join(', ')}`);
  }
}

function toQuote(step: LifiStep, request: CrossChainRequest): CrossChainQuote {
  const costs = [...step.estimate.feeCosts, ...step.estimate.gasCosts].flatMap((cost) =>
    cost.amountUSD === null ? [] : [cost.amountUSD],
  );
  return {
    providerId: LIFI_PROVIDER_ID,
    bridgeName: step.toolName,
    amountOut: step.estimate.toAmount,
    minimumReceived: step.estimate.toAmountMin,
    // What LI.FI takes from the input for us, at the fractions we asked (rounded down, as amounts are).
    protocolFeeAmount: (request.amountIn * BigInt(request.protocolFeePips)) / 1_000_000n,
    integratorFeeAmount: (request.amountIn * BigInt(request.integratorFeeBps)) / 10_000n,
    // Gas units of the source transaction(s) LI.FI estimates (approval included when it lists one).
    estimatedGas: step.estimate.gasCosts.reduce((sum, cost) => sum + cost.estimate, 0n),
    estimateCostInUSD: sumDecimals(costs),
    estimatedSeconds: Math.ceil(step.estimate.executionDuration),
    route: routeAssets(step),
  };
}

/** The assets the transfer passes through, in order, each once: LI.FI's tokens with their decimals. */
function routeAssets(step: LifiStep): RouteAsset[] {
  const tokens = [
    step.action.fromToken,
    ...step.includedSteps.flatMap((included) => [included.fromToken, included.toToken]),
    step.action.toToken,
  ];
  const route: RouteAsset[] = [];
  for (const token of tokens) {
    const last = route[route.length - 1];
    if (
      last &&
      last.chainId === token.chainId &&
      last.address.toLowerCase() === token.address.toLowerCase()
    ) {
      continue;
    }
    route.push({
      chainId: token.chainId,
      address: token.address,
      symbol: token.symbol,
      decimals: token.decimals,
    });
  }
  return route;
}

function toSwap(step: LifiStep, request: CrossChainRequest, account: string): CrossChainSwap {
  const tx = step.transactionRequest;
  if (!tx) throw new LifiError('bad-response', 'LI.FI quote has no transactionRequest');
  if (tx.chainId !== null && tx.chainId !== request.fromChainId) {
    throw new LifiError('bad-response', `LI.FI transaction is for chain ${tx.chainId}`);
  }
  if (tx.from !== null && tx.from.toLowerCase() !== account.toLowerCase()) {
    throw new LifiError('bad-response', 'LI.FI transaction is not built for the account');
  }
  // The spec's recipient is the account: an output sent anywhere else is never handed out.
  if (step.action.toAddress !== null && step.action.toAddress.toLowerCase() !== account.toLowerCase()) {
    throw new LifiError('bad-response', 'LI.FI transfer pays another recipient than the account');
  }
  if (request.tokenIn.native && tx.value < request.amountIn) {
    throw new LifiError('bad-response', 'LI.FI transaction sends less native coin than the amount');
  }
  let contractToApprove: string | undefined;
  if (!request.tokenIn.native) {
    if (!step.estimate.approvalAddress) {
      throw new LifiError('bad-response', 'LI.FI quote names no approvalAddress for an ERC-20 input');
    }
    contractToApprove = step.estimate.approvalAddress;
  }
  const gasLimits = step.estimate.gasCosts.flatMap((cost) => (cost.limit === null ? [] : [cost.limit]));
  return {
    to: tx.to,
    data: tx.data,
    value: tx.value,
    ...(contractToApprove ? { contractToApprove } : {}),
    estimatedGas: tx.gasLimit ?? gasLimits.reduce((sum, limit) => sum + limit, 0n),
    amountOut: step.estimate.toAmount,
    minimumReceived: step.estimate.toAmountMin,
  };
}

/**
 * LI.FI's status in its own words, except DONE/REFUNDED: LI.FI files a refund under DONE, but the spec reads DONE as
 * success, and an account whose tokens came back did not get its transfer. It is reported as FAILED/REFUNDED (both
 * LI.FI's words), so no client shows a refund as a completed transfer.
 */
function toStatusReport(answer: LifiStatus, fromChainId: number): TransferStatusReport {
  const sourceChain = answer.sending?.chainId ?? fromChainId;
  const refunded = answer.status === 'DONE' && answer.substatus === 'REFUNDED';
  return {
    fromChainId: sourceChain,
    // LI.FI names the destination once it knows the route; before that (INVALID) there is none but the source.
    toChainId: answer.receiving?.chainId ?? sourceChain,
    fromTxHash: answer.sending?.txHash ?? null,
    toTxHash: answer.receiving?.txHash ?? null,
    fromAmount: answer.sending?.amount ?? null,
    toAmount: answer.receiving?.amount ?? null,
    fromTokenAddress: answer.sending?.tokenAddress ?? null,
    toTokenAddress: answer.receiving?.tokenAddress ?? null,
    bridgeHash: answer.transactionId,
    status: refunded ? 'FAILED' : answer.status,
    detailStatus: answer.substatus,
  };
}
