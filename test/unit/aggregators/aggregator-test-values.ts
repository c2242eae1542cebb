/**
 * The request every recorded aggregator exchange answers (test/fixtures/aggregators): 1 WETH to USDC on Ethereum,
 * quoted for our router contract as the taker.
 */
import type {
  ExternalQuoteRequest,
  ExternalSwapRequest,
} from '../../../shared/routing/aggregators/external-aggregator';

export const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
export const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
/** Stands for our SwapRouter: the contract that calls the aggregator and receives the USDC. */
export const TAKER = '0x4fd39C9E151e50580779bd04B1f7eCc310079fd3';
/** A token no aggregator knows. */
export const UNKNOWN_TOKEN = '0x000000000000000000000000000000000000bAd0';
export const ONE_WETH = 10n ** 18n;
/** 1e30 WETH: more than every pool holds. */
export const HUGE_AMOUNT = 10n ** 30n;

export const WETH_USDC: ExternalQuoteRequest = {
  chainId: 1,
  tokenIn: WETH,
  tokenOut: USDC,
  amountIn: ONE_WETH,
  taker: TAKER,
};

export const WETH_USDC_SWAP: ExternalSwapRequest = { ...WETH_USDC, slippageBps: 50 };

/** The rejection of `promise`, failing the test when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

export const signal = (): AbortSignal => new AbortController().signal;
