/**
 * Odos Smart Order Router v2 (https://docs.odos.xyz): POST /sor/quote/v2 for a quote and a pathId, then
 * POST /sor/assemble with that pathId (valid 60 s) for calldata. The taker approves the Odos router, which is the
 * assembled transaction's `to`. The API key, for Odos's enterprise endpoints, goes in `x-api-key`.
 */
import { AggregatorHttp, numberField, stringField, type HttpAnswer } from './aggregator-http';
import { AnswerReader } from './answer-reader';
import type { ExternalAggregatorConfig } from './external-aggregator-config';
import {
  checkQuoteRequest,
  checkSwapRequest,
  minAmountOutFor,
  sameAddress,
  type ExternalAggregator,
  type ExternalAggregatorError,
  type ExternalQuote,
  type ExternalQuoteRequest,
  type ExternalSwap,
} from './external-aggregator';

const QUOTE_PATH = '/sor/quote/v2';
const ASSEMBLE_PATH = '/sor/assemble';

/** Odos error codes (https://docs.odos.xyz/build/api_errors): 2000 NO_VIABLE_PATH; 4XXX validation errors. */
const NO_VIABLE_PATH = 2000;
const isValidationError = (code: number) => code >= 4000 && code < 5000;

interface OdosPath {
  pathId: string;
  amountOut: bigint;
  gasEstimate: bigint;
}

export function createOdosAggregator(settings: Omit<ExternalAggregatorConfig, 'id'>): ExternalAggregator {
  const chains = new Set(settings.chainIds);
  const http = new AggregatorHttp({
    aggregatorId: 'odos',
    name: 'Odos',
    apiUrl: settings.apiUrl,
    apiKey: settings.apiKey,
    headers: settings.apiKey ? { 'x-api-key': settings.apiKey } : {},
  });

  async function findPath(
    req: ExternalQuoteRequest,
    slippageBps: number | undefined,
    signal: AbortSignal,
  ): Promise<OdosPath> {
    const body = {
      chainId: req.chainId,
      inputTokens: [{ tokenAddress: req.tokenIn, amount: req.amountIn.toString() }],
      outputTokens: [{ tokenAddress: req.tokenOut, proportion: 1 }],
      // The address that will call the router: Odos assembles only for the quote's userAddr.
      userAddr: req.taker,
      // In percent (0.5 = 0.5%); a plain quote keeps Odos's default.
      ...(slippageBps === undefined ? {} : { slippageLimitPercent: slippageBps / 100 }),
      compact: true,
    };
    const answer = await http.post(QUOTE_PATH, {}, body, signal);
    if (answer.status !== 200) throw failure(http, QUOTE_PATH, answer);
    const root = AnswerReader.root(answer.json, `Odos ${QUOTE_PATH}`, 'odos');
    if (root.firstUint('inAmounts') !== req.amountIn)
      throw root.fail('inAmounts', 'is not the amount asked for');
    if (!sameAddress(root.firstAddress('outTokens'), req.tokenOut)) {
      throw root.fail('outTokens', 'is not the token asked for');
    }
    return {
      pathId: root.string('pathId'),
      amountOut: root.firstUint('outAmounts'),
      gasEstimate: root.gas('gasEstimate'),
    };
  }

  return {
    id: 'odos',
    name: 'Odos',
    supports: (chainId) => chains.has(chainId),

    async quote(req, signal): Promise<ExternalQuote> {
      checkQuoteRequest(req);
      const path = await findPath(req, undefined, signal);
      return { aggregatorId: 'odos', amountOut: path.amountOut, gasEstimate: path.gasEstimate };
    },

    async buildSwap(req, signal): Promise<ExternalSwap> {
      checkSwapRequest(req);
      const path = await findPath(req, req.slippageBps, signal);
      // simulate: false — Odos would simulate from the taker, which approves the router only while it executes.
      const body = { userAddr: req.taker, pathId: path.pathId, simulate: false };
      const answer = await http.post(ASSEMBLE_PATH, {}, body, signal);
      if (answer.status !== 200) throw failure(http, ASSEMBLE_PATH, answer);
      const root = AnswerReader.root(answer.json, `Odos ${ASSEMBLE_PATH}`, 'odos');
      const transaction = root.object('transaction');
      const to = transaction.address('to');
      const [output] = root.objects('outputTokens');
      const amountOut = output === undefined ? path.amountOut : output.uint('amount');
      return {
        aggregatorId: 'odos',
        to,
        data: transaction.hexData('data'),
        value: transaction.value256('value'),
        // Odos's router pulls the input itself: the contract to approve is the one to call.
        spender: to,
        amountOut,
        minAmountOut: minAmountOutFor(amountOut, req.slippageBps),
        gasEstimate: transaction.estimatedGas('gas') ?? path.gasEstimate,
      };
    },
  };
}

/** Odos's error body is `{detail, traceId, errorCode}`. */
function failure(http: AggregatorHttp, path: string, answer: HttpAnswer): ExternalAggregatorError {
  const detail = stringField(answer.json, 'detail');
  const code = numberField(answer.json, 'errorCode');
  if (code === null) return http.failByStatus(path, answer, detail);
  if (code === NO_VIABLE_PATH) return http.fail('no-route', path, answer.status, detail, code);
  if (isValidationError(code)) return http.fail('rejected', path, answer.status, detail, code);
  return http.fail('unavailable', path, answer.status, detail, code);
}
