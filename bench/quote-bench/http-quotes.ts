/**
 * POST /quotes through the real api over HTTP (SQLite store, requests signed by an API account as any
 * integrator's), for the benchmark's end-to-end line: the engine's work plus validation, token look-ups,
 * fees, the response and the HTTP round trip on loopback, client-side signing included.
 */
import type { ChainConfig } from '../../shared/config/config-schema';
import { newAccountClient, type ApiClient } from '../../test/helpers/api-client';
import { startApi, type RunningApi } from '../../test/helpers/api-harness';
import { createStoreTarget, type StoreTarget } from '../../test/helpers/store-targets';

export interface HttpQuoteParams {
  chainId: number;
  inTokenAddress: string;
  outTokenAddress: string;
  /** Human units, as the spec has it. */
  amount: string;
  /** Whole gwei. */
  gasPrice: string;
}

export interface HttpQuote {
  status: number;
  /** Net of the protocol fee, base units; absent on an error. */
  outAmount?: string;
  aggregatorOrder?: string[];
  errorCode?: string;
}

interface QuoteData {
  quote: { outAmount: string; aggregatorOrder: string[] };
}

export class HttpQuoteApi {
  private constructor(
    private readonly target: StoreTarget,
    private readonly running: RunningApi,
    private readonly client: ApiClient,
  ) {}

  /** `env`: the api's settings beyond the defaults (e.g. external aggregators). */
  static async start(chains: ChainConfig[], env: Record<string, string> = {}): Promise<HttpQuoteApi> {
    const target = await createStoreTarget('sqlite');
    try {
      const running = await startApi(target, env, { chains });
      try {
        return new HttpQuoteApi(target, running, await newAccountClient(running.baseUrl, 'quote-bench'));
      } catch (err) {
        await running.close();
        throw err;
      }
    } catch (err) {
      await target.cleanup();
      throw err;
    }
  }

  async quote(params: HttpQuoteParams): Promise<HttpQuote> {
    const res = await this.client.post<QuoteData>('/quotes', {
      mode: 'single-chain',
      params: { ...params, slippage: '0.5' },
    });
    return {
      status: res.status,
      outAmount: res.body.data?.quote.outAmount,
      aggregatorOrder: res.body.data?.quote.aggregatorOrder,
      errorCode: res.body.error?.code,
    };
  }

  /** The api loads pools in the background: until then its quotes answer NO_ROUTE. */
  async waitUntilQuotable(all: readonly HttpQuoteParams[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answers = await Promise.all(all.map((p) => this.quote(p)));
      if (answers.every((a) => a.status === 200)) return;
      const unexpected = answers.find((a) => a.status !== 200 && a.errorCode !== 'NO_ROUTE');
      if (unexpected) throw new Error(`POST /quotes answered ${unexpected.status} ${unexpected.errorCode}`);
      if (Date.now() > deadline) throw new Error(`the api had no route after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async close(): Promise<void> {
    await this.running.close();
    await this.target.cleanup();
  }
}
