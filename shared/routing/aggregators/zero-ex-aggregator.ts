/**
 * 0x Swap API v2, AllowanceHolder flow (https://0x.org/docs/api): GET /swap/allowance-holder/price for a quote,
 * GET /swap/allowance-holder/quote for calldata. The taker approves AllowanceHolder (`issues.allowance.spender`,
 * also `allowanceTarget`), which is also the transaction's `to`: never the Settler contract.
 */
import { AggregatorHttp, stringField, type HttpAnswer } from './aggregator-http';
import { AnswerReader } from './answer-reader';
import type { ExternalAggregatorConfig } from './external-aggregator-config';
import {
  checkQuoteRequest,
  checkSwapRequest,
  FALLBACK_SWAP_GAS,
  sameAddress,
  type ExternalAggregator,
  type ExternalAggregatorError,
  type ExternalQuote,
  type ExternalQuoteRequest,
  type ExternalSwap,
  type ExternalSwapRequest,
} from './external-aggregator';

const PRICE_PATH = '/swap/allowance-holder/price';
const QUOTE_PATH = '/swap/allowance-holder/quote';

export function createZeroExAggregator(settings: Omit<ExternalAggregatorConfig, 'id'>): ExternalAggregator {
  const chains = new Set(settings.chainIds);
  const http = new AggregatorHttp({
    aggregatorId: '0x',
    name: '0x',
    apiUrl: settings.apiUrl,
    apiKey: settings.apiKey,
    headers: { '0x-api-key': settings.apiKey, '0x-version': 'v2' },
  });

  const baseQuery = (req: ExternalQuoteRequest) => ({
    chainId: String(req.chainId),
    sellToken: req.tokenIn,
    buyToken: req.tokenOut,
    sellAmount: req.amountIn.toString(),
    taker: req.taker,
  });

  /** Reads a 200 answer of either endpoint: `liquidityAvailable: false` (with nothing else) is no route. */
  function readAnswer(path: string, answer: HttpAnswer, req: ExternalQuoteRequest): AnswerReader {
    if (answer.status < 200 || answer.status > 299) throw failure(http, path, answer);
    const root = AnswerReader.root(answer.json, `0x ${path}`, '0x');
    if (!root.boolean('liquidityAvailable')) {
      throw http.fail('no-route', path, answer.status, 'liquidityAvailable is false');
    }
    if (root.uint('sellAmount') !== req.amountIn)
      throw root.fail('sellAmount', 'is not the amount asked for');
    if (!sameAddress(root.address('buyToken'), req.tokenOut))
      throw root.fail('buyToken', 'is not the token asked for');
    return root;
  }

  return {
    id: '0x',
    name: '0x',
    supports: (chainId) => chains.has(chainId),

    async quote(req, signal): Promise<ExternalQuote> {
      checkQuoteRequest(req);
      const answer = await http.get(PRICE_PATH, baseQuery(req), signal);
      const root = readAnswer(PRICE_PATH, answer, req);
      return {
        aggregatorId: '0x',
        amountOut: root.uint('buyAmount'),
        gasEstimate: root.estimatedGas('gas') ?? FALLBACK_SWAP_GAS,
      };
    },

    async buildSwap(req: ExternalSwapRequest, signal): Promise<ExternalSwap> {
      checkSwapRequest(req);
      const query = { ...baseQuery(req), slippageBps: String(req.slippageBps), txOrigin: req.txOrigin };
      const answer = await http.get(QUOTE_PATH, query, signal);
      const root = readAnswer(QUOTE_PATH, answer, req);
      const transaction = root.object('transaction');
      const to = transaction.address('to');
      // `issues.allowance` is null when the taker already has an allowance; `allowanceTarget` is always there.
      const spender =
        root.object('issues').optionalObject('allowance')?.address('spender') ??
        root.optionalAddress('allowanceTarget');
      if (spender === null) throw root.fail('allowanceTarget', 'is missing: no spender for an ERC-20 sell');
      if (!sameAddress(spender, to)) {
        throw root.fail('transaction.to', `(${to}) is not the AllowanceHolder spender ${spender}`);
      }
      return {
        aggregatorId: '0x',
        to,
        data: transaction.hexData('data'),
        value: transaction.value256('value'),
        spender,
        amountOut: root.uint('buyAmount'),
        minAmountOut: root.uint('minBuyAmount'),
        gasEstimate: transaction.estimatedGas('gas') ?? FALLBACK_SWAP_GAS,
      };
    },
  };
}

/**
 * 0x's documented error body is `{name, message, data: {zid, details?}}`: 400 INPUT_INVALID, TOKEN_NOT_SUPPORTED,
 * SWAP_VALIDATION_FAILED; 403 TAKER_NOT_AUTHORIZED_FOR_TRADE; 422 *_TOKEN_NOT_AUTHORIZED_FOR_TRADE; 500
 * INTERNAL_SERVER_ERROR. Every 4xx but 429 is a refusal of our request.
 */
function failure(http: AggregatorHttp, path: string, answer: HttpAnswer): ExternalAggregatorError {
  const name = stringField(answer.json, 'name');
  const message = stringField(answer.json, 'message');
  return http.failByStatus(path, answer, message ?? name, name);
}
