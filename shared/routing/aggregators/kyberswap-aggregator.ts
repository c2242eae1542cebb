/**
 * KyberSwap Aggregator API v1 (https://docs.kyberswap.com/kyberswap-solutions/kyberswap-aggregator): GET
 * /{chain}/api/v1/routes for a routeSummary, then POST /{chain}/api/v1/route/build with that routeSummary,
 * unmodified, for calldata. The taker approves the router (`routerAddress`), which is also the transaction's `to`.
 * The configured key is KyberSwap's `x-client-id` (its rate limits are per client id).
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

/** KyberSwap names chains in its paths. */
export const KYBERSWAP_CHAIN_SLUGS: ReadonlyMap<number, string> = new Map([
  [1, 'ethereum'],
  [10, 'optimism'],
  [56, 'bsc'],
  [130, 'unichain'],
  [137, 'polygon'],
  [146, 'sonic'],
  [5000, 'mantle'],
  [8453, 'base'],
  [42161, 'arbitrum'],
  [43114, 'avalanche'],
  [59144, 'linea'],
  [80094, 'berachain'],
]);

/** KyberSwap's `code`s for no route: 4008 route not found, 4009 amountIn above the maximum, 4010 no eligible pools. */
const NO_ROUTE_CODES = new Set([4008, 4009, 4010]);
/** 4222 (an RFQ maker quoted less than estimated) and 4227 (gas estimation failed) pass with a fresh route. */
const TRANSIENT_CODES = new Set([4222, 4227]);

interface KyberRoute {
  /** The routeSummary exactly as KyberSwap sent it: /route/build wants it unmodified. */
  raw: unknown;
  amountOut: bigint;
  gas: bigint;
  routerAddress: string;
}

export function createKyberswapAggregator(
  settings: Omit<ExternalAggregatorConfig, 'id'>,
): ExternalAggregator {
  const chains = new Set(settings.chainIds.filter((chainId) => KYBERSWAP_CHAIN_SLUGS.has(chainId)));
  const http = new AggregatorHttp({
    aggregatorId: 'kyberswap',
    name: 'KyberSwap',
    apiUrl: settings.apiUrl,
    apiKey: settings.apiKey,
    headers: settings.apiKey ? { 'x-client-id': settings.apiKey } : {},
  });

  function slugOf(chainId: number): string {
    const slug = KYBERSWAP_CHAIN_SLUGS.get(chainId);
    if (slug === undefined) throw new RangeError(`KyberSwap does not serve chain ${chainId}`);
    return slug;
  }

  async function findRoute(req: ExternalQuoteRequest, origin: string | undefined, signal: AbortSignal) {
    const path = `/${slugOf(req.chainId)}/api/v1/routes`;
    const query = { tokenIn: req.tokenIn, tokenOut: req.tokenOut, amountIn: req.amountIn.toString(), origin };
    const answer = await http.get(path, query, signal);
    const data = readData(http, path, answer);
    const summary = data.object('routeSummary');
    if (summary.uint('amountIn') !== req.amountIn)
      throw summary.fail('amountIn', 'is not the amount asked for');
    if (!sameAddress(summary.address('tokenOut'), req.tokenOut)) {
      throw summary.fail('tokenOut', 'is not the token asked for');
    }
    const route: KyberRoute = {
      raw: data.raw('routeSummary'),
      amountOut: summary.uint('amountOut'),
      gas: summary.gas('gas'),
      routerAddress: data.address('routerAddress'),
    };
    return route;
  }

  return {
    id: 'kyberswap',
    name: 'KyberSwap',
    supports: (chainId) => chains.has(chainId),

    async quote(req, signal): Promise<ExternalQuote> {
      checkQuoteRequest(req);
      const route = await findRoute(req, undefined, signal);
      return { aggregatorId: 'kyberswap', amountOut: route.amountOut, gasEstimate: route.gas };
    },

    async buildSwap(req, signal): Promise<ExternalSwap> {
      checkSwapRequest(req);
      const route = await findRoute(req, req.txOrigin, signal);
      const path = `/${slugOf(req.chainId)}/api/v1/route/build`;
      const body = {
        routeSummary: route.raw,
        sender: req.taker,
        recipient: req.taker,
        // Basis points; KyberSwap's default is 0.
        slippageTolerance: req.slippageBps,
        ...(settings.apiKey ? { source: settings.apiKey } : {}),
        ...(req.txOrigin === undefined ? {} : { origin: req.txOrigin }),
      };
      const answer = await http.post(path, {}, body, signal);
      const data = readData(http, path, answer);
      const to = data.address('routerAddress');
      if (!sameAddress(to, route.routerAddress)) {
        throw data.fail(
          'routerAddress',
          `(${to}) is not the router ${route.routerAddress} the route was quoted for`,
        );
      }
      if (data.uint('amountIn') !== req.amountIn) throw data.fail('amountIn', 'is not the amount asked for');
      const amountOut = data.uint('amountOut');
      return {
        aggregatorId: 'kyberswap',
        to,
        data: data.hexData('data'),
        value: data.value256('transactionValue'),
        spender: route.routerAddress,
        amountOut,
        minAmountOut: minAmountOutFor(amountOut, req.slippageBps),
        gasEstimate: data.estimatedGas('gas') ?? route.gas,
      };
    },
  };
}

/** KyberSwap wraps every answer in `{code, message, data, requestId}`; code 0 is success. */
function readData(http: AggregatorHttp, path: string, answer: HttpAnswer): AnswerReader {
  const code = numberField(answer.json, 'code');
  if (answer.status !== 200 || code !== 0) throw failure(http, path, answer, code);
  return AnswerReader.root(answer.json, `KyberSwap ${path}`, 'kyberswap').object('data');
}

function failure(
  http: AggregatorHttp,
  path: string,
  answer: HttpAnswer,
  code: number | null,
): ExternalAggregatorError {
  const message = stringField(answer.json, 'message');
  if (code !== null && NO_ROUTE_CODES.has(code))
    return http.fail('no-route', path, answer.status, message, code);
  if (code !== null && TRANSIENT_CODES.has(code))
    return http.fail('unavailable', path, answer.status, message, code);
  if (answer.status === 200) {
    // A 200 without a numeric code is not KyberSwap's envelope; with one, an error it did not document.
    const kind = code === null ? 'unavailable' : 'rejected';
    return http.fail(kind, path, answer.status, message ?? 'the body has no numeric `code`', code);
  }
  return http.failByStatus(path, answer, message, code);
}
