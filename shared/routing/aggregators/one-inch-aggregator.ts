/**
 * 1inch Swap API v6.0 (https://portal.1inch.dev/documentation/apis/swap/classic-swap): GET /swap/v6.0/{chain}/quote
 * for a quote, GET /swap/v6.0/{chain}/swap for calldata, GET /swap/v6.0/{chain}/approve/spender for the address to
 * approve (the aggregation router, which is also the transaction's `to`). Authorization: Bearer <key>.
 */
import { AggregatorHttp, stringField, type HttpAnswer } from './aggregator-http';
import { AnswerReader } from './answer-reader';
import type { ExternalAggregatorConfig } from './external-aggregator-config';
import {
  checkQuoteRequest,
  checkSwapRequest,
  FALLBACK_SWAP_GAS,
  minAmountOutFor,
  sameAddress,
  type ExternalAggregator,
  type ExternalAggregatorError,
  type ExternalQuote,
  type ExternalSwap,
} from './external-aggregator';

const version = (chainId: number) => `/swap/v6.0/${chainId}`;

export function createOneInchAggregator(settings: Omit<ExternalAggregatorConfig, 'id'>): ExternalAggregator {
  const chains = new Set(settings.chainIds);
  const http = new AggregatorHttp({
    aggregatorId: '1inch',
    name: '1inch',
    apiUrl: settings.apiUrl,
    apiKey: settings.apiKey,
    headers: { authorization: `Bearer ${settings.apiKey}` },
  });
  /** The router changes only with a new API version: asked once per chain (again after a failure). */
  const spenders = new Map<number, Promise<string>>();

  function spenderOf(chainId: number, signal: AbortSignal): Promise<string> {
    let spender = spenders.get(chainId);
    if (!spender) {
      spender = fetchSpender(chainId, signal);
      spenders.set(chainId, spender);
      spender.catch(() => spenders.delete(chainId));
    }
    return spender;
  }

  async function fetchSpender(chainId: number, signal: AbortSignal): Promise<string> {
    const path = `${version(chainId)}/approve/spender`;
    const answer = await http.get(path, {}, signal);
    if (answer.status !== 200) throw failure(http, path, answer);
    return AnswerReader.root(answer.json, `1inch ${path}`, '1inch').address('address');
  }

  return {
    id: '1inch',
    name: '1inch',
    supports: (chainId) => chains.has(chainId),

    async quote(req, signal): Promise<ExternalQuote> {
      checkQuoteRequest(req);
      const path = `${version(req.chainId)}/quote`;
      const query = {
        src: req.tokenIn,
        dst: req.tokenOut,
        amount: req.amountIn.toString(),
        includeGas: 'true',
      };
      const answer = await http.get(path, query, signal);
      if (answer.status !== 200) throw failure(http, path, answer);
      const root = AnswerReader.root(answer.json, `1inch ${path}`, '1inch');
      return {
        aggregatorId: '1inch',
        amountOut: root.uint('dstAmount'),
        gasEstimate: root.estimatedGas('gas') ?? FALLBACK_SWAP_GAS,
      };
    },

    async buildSwap(req, signal): Promise<ExternalSwap> {
      checkSwapRequest(req);
      const spender = await spenderOf(req.chainId, signal);
      const path = `${version(req.chainId)}/swap`;
      const query = {
        src: req.tokenIn,
        dst: req.tokenOut,
        amount: req.amountIn.toString(),
        from: req.taker,
        // In percent: 50 bps is "0.5".
        slippage: String(req.slippageBps / 100),
        // 1inch would otherwise simulate the swap from the taker, which approves the router only when it executes.
        disableEstimate: 'true',
      };
      const answer = await http.get(path, query, signal);
      if (answer.status !== 200) throw failure(http, path, answer);
      const root = AnswerReader.root(answer.json, `1inch ${path}`, '1inch');
      const tx = root.object('tx');
      const to = tx.address('to');
      if (!sameAddress(to, spender))
        throw root.fail('tx.to', `(${to}) is not the router ${spender} to approve`);
      const amountOut = root.uint('dstAmount');
      return {
        aggregatorId: '1inch',
        to,
        data: tx.hexData('data'),
        value: tx.value256('value'),
        spender,
        amountOut,
        // The router's minReturn is dstAmount less the slippage, as the API encodes it.
        minAmountOut: minAmountOutFor(amountOut, req.slippageBps),
        gasEstimate: tx.estimatedGas('gas') ?? FALLBACK_SWAP_GAS,
      };
    },
  };
}

/**
 * 1inch's 400 body is `{error: "Bad Request", description, statusCode, requestId, meta}`; "insufficient liquidity"
 * is its no-route answer. Other answers carry `description` or `message`.
 */
function failure(http: AggregatorHttp, path: string, answer: HttpAnswer): ExternalAggregatorError {
  const description =
    stringField(answer.json, 'description') ??
    stringField(answer.json, 'message') ??
    stringField(answer.json, 'error');
  if (answer.status === 400 && description !== null && /insufficient liquidity/i.test(description)) {
    return http.fail('no-route', path, answer.status, description);
  }
  return http.failByStatus(path, answer, description);
}
