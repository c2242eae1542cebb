/**
 * ParaSwap (Velora) Market API (https://developers.velora.xyz/api/velora-api/velora-market-api): GET /prices with
 * version=6.2 for a priceRoute, then POST /transactions/{network} with that priceRoute, unmodified, for calldata.
 * Augustus v6.2 pulls the tokens itself: priceRoute.tokenTransferProxy is the router, the transaction's `to`.
 * /prices needs both tokens' decimals, which the caller supplies (`decimalsOf`).
 */
import { AggregatorHttp, stringField, type HttpAnswer } from './aggregator-http';
import { AnswerReader } from './answer-reader';
import type { ExternalAggregatorConfig } from './external-aggregator-config';
import {
  checkQuoteRequest,
  checkSwapRequest,
  ExternalAggregatorError,
  minAmountOutFor,
  sameAddress,
  type ExternalAggregator,
  type ExternalQuote,
  type ExternalQuoteRequest,
  type ExternalSwap,
} from './external-aggregator';

const PRICES_PATH = '/prices';
/** ParaSwap's default price-impact cap (15%) refuses with this error instead of a route. */
const MAX_IMPACT_ERROR = 'ESTIMATED_LOSS_GREATER_THAN_MAX_IMPACT';
const NO_ROUTE_ERROR = /no routes found/i;

/** The decimals of a token on a chain, undefined when unknown. */
export type TokenDecimalsLookup = (chainId: number, token: string) => number | undefined;

export interface ParaswapAggregatorOptions extends Omit<ExternalAggregatorConfig, 'id'> {
  decimalsOf: TokenDecimalsLookup;
}

interface PricedRoute {
  /** The priceRoute exactly as ParaSwap sent it: /transactions checks it unmodified. */
  raw: unknown;
  destAmount: bigint;
  gasCost: bigint;
  tokenTransferProxy: string;
  srcDecimals: number;
  destDecimals: number;
}

export function createParaswapAggregator(options: ParaswapAggregatorOptions): ExternalAggregator {
  const chains = new Set(options.chainIds);
  const http = new AggregatorHttp({
    aggregatorId: 'paraswap',
    name: 'ParaSwap',
    apiUrl: options.apiUrl,
    apiKey: options.apiKey,
    headers: options.apiKey ? { 'x-api-key': options.apiKey } : {},
  });

  function decimals(req: ExternalQuoteRequest, token: string): number {
    const found = options.decimalsOf(req.chainId, token);
    if (found === undefined) {
      throw new ExternalAggregatorError(
        'paraswap',
        'rejected',
        `ParaSwap ${PRICES_PATH}: the decimals of ${token} on chain ${req.chainId} are not known`,
      );
    }
    return found;
  }

  async function price(req: ExternalQuoteRequest, signal: AbortSignal): Promise<PricedRoute> {
    const srcDecimals = decimals(req, req.tokenIn);
    const destDecimals = decimals(req, req.tokenOut);
    const query = {
      srcToken: req.tokenIn,
      srcDecimals: String(srcDecimals),
      destToken: req.tokenOut,
      destDecimals: String(destDecimals),
      amount: req.amountIn.toString(),
      side: 'SELL',
      network: String(req.chainId),
      version: '6.2',
      userAddress: req.taker,
    };
    const answer = await http.get(PRICES_PATH, query, signal);
    if (answer.status !== 200) throw failure(http, PRICES_PATH, answer);
    const root = AnswerReader.root(answer.json, `ParaSwap ${PRICES_PATH}`, 'paraswap');
    const route = root.object('priceRoute');
    if (route.optionalBoolean('maxImpactReached') === true) {
      throw http.fail('no-route', PRICES_PATH, answer.status, 'priceRoute.maxImpactReached is true');
    }
    if (route.uint('srcAmount') !== req.amountIn)
      throw route.fail('srcAmount', 'is not the amount asked for');
    if (!sameAddress(route.address('destToken'), req.tokenOut)) {
      throw route.fail('destToken', 'is not the token asked for');
    }
    return {
      raw: root.raw('priceRoute'),
      destAmount: route.uint('destAmount'),
      gasCost: route.gas('gasCost'),
      tokenTransferProxy: route.address('tokenTransferProxy'),
      srcDecimals,
      destDecimals,
    };
  }

  return {
    id: 'paraswap',
    name: 'ParaSwap',
    supports: (chainId) => chains.has(chainId),

    async quote(req, signal): Promise<ExternalQuote> {
      checkQuoteRequest(req);
      const route = await price(req, signal);
      return { aggregatorId: 'paraswap', amountOut: route.destAmount, gasEstimate: route.gasCost };
    },

    async buildSwap(req, signal): Promise<ExternalSwap> {
      checkSwapRequest(req);
      const route = await price(req, signal);
      const path = `/transactions/${req.chainId}`;
      const body = {
        srcToken: req.tokenIn,
        destToken: req.tokenOut,
        srcAmount: req.amountIn.toString(),
        // Basis points; with slippage ParaSwap derives the minimum from priceRoute.destAmount.
        slippage: req.slippageBps,
        priceRoute: route.raw,
        userAddress: req.taker,
        srcDecimals: route.srcDecimals,
        destDecimals: route.destDecimals,
        ...(req.txOrigin === undefined ? {} : { txOrigin: req.txOrigin }),
      };
      // ignoreChecks: the taker contract holds the tokens and approves the router only while it executes.
      const answer = await http.post(path, { ignoreChecks: 'true' }, body, signal);
      if (answer.status !== 200) throw failure(http, path, answer);
      const tx = AnswerReader.root(answer.json, `ParaSwap ${path}`, 'paraswap');
      const to = tx.address('to');
      if (!sameAddress(to, route.tokenTransferProxy)) {
        throw tx.fail('to', `(${to}) is not the priceRoute's tokenTransferProxy ${route.tokenTransferProxy}`);
      }
      return {
        aggregatorId: 'paraswap',
        to,
        data: tx.hexData('data'),
        value: tx.value256('value'),
        spender: route.tokenTransferProxy,
        amountOut: route.destAmount,
        minAmountOut: minAmountOutFor(route.destAmount, req.slippageBps),
        // With ignoreChecks the answer has no `gas`: the priceRoute's estimate stands.
        gasEstimate: tx.estimatedGas('gas') ?? route.gasCost,
      };
    },
  };
}

/** ParaSwap's error body is `{error: "<message>"}` (some add `value` and `priceRoute`). */
function failure(http: AggregatorHttp, path: string, answer: HttpAnswer): ExternalAggregatorError {
  const error = stringField(answer.json, 'error');
  if (error !== null && (error === MAX_IMPACT_ERROR || NO_ROUTE_ERROR.test(error))) {
    return http.fail('no-route', path, answer.status, error, error === MAX_IMPACT_ERROR ? error : null);
  }
  return http.failByStatus(path, answer, error);
}
