import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { crossChainDexHash } from '../../shared/bridges/dex-hash';
import { newAccountClient, type ApiClient, type ApiResponse, type Envelope } from '../helpers/api-client';
import { startApiOn } from '../helpers/api-harness';

/*
 * Cross-chain quotes, swaps and POST /tx-status refuse what they must before any chain is read, through the signed
 * HTTP API. The repo's chains file enables chains 1, 137 and 8453 (Base, not a cross-chain source) with their token
 * lists and no contracts, so the devnet bridges serve nothing here; LI.FI is configured against a local server that
 * never answers a quote and answers every status with 503, so it is a provider between any two chains whose calls
 * fail: what the api answers when a provider is slow or down is tested too. The devnet suite
 * test/e2e/cross-chain-api.test.ts runs the transfers themselves.
 */

const CHAIN1 = {
  WETH: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
  USDC: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
};
const CHAIN137_USDC = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const UNLISTED = '0x1111111111111111111111111111111111111111';
const ACCOUNT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const INVALID_BODY = 'Invalid request body';
const LIFI_DEX_HASH = crossChainDexHash('lifi');

type Body = Record<string, unknown>;
type Detail = { field?: string; message: string };

function expectError(
  res: ApiResponse<Envelope<unknown>>,
  status: number,
  code: string,
  message: string,
  details: Detail[],
): void {
  expect({
    status: res.status,
    success: res.body.success,
    error: res.body.error,
    data: res.body.data,
  }).toEqual({
    status,
    success: false,
    error: { code, message, details },
    data: undefined,
  });
}

const quoteParams = (over: Body = {}): Body => ({
  fromChainId: 1,
  toChainId: 137,
  inTokenAddress: CHAIN1.USDC,
  outTokenAddress: CHAIN137_USDC,
  amount: '10',
  slippage: '0.5',
  ...over,
});
const swapParams = (over: Body = {}): Body =>
  quoteParams({ account: ACCOUNT, aggregatorId: 'lifi', ...over });

/** A LI.FI stand-in: /v1/quote never answers (a provider slower than any budget), anything else is a 503. */
async function startStalledLifi(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/v1/quote')) return;
    res.writeHead(503, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ message: 'maintenance' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('cross-chain quotes, swaps and transfer status: validation', () => {
  let running: Awaited<ReturnType<typeof startApiOn>>;
  let lifi: Awaited<ReturnType<typeof startStalledLifi>>;
  let client: ApiClient;

  beforeAll(async () => {
    lifi = await startStalledLifi();
    running = await startApiOn('sqlite', { LIFI_API_URL: lifi.url, LIFI_TIMEOUT_MS: '60000' });
    client = await newAccountClient(running.baseUrl);
  });
  afterAll(async () => {
    await running?.close();
    await lifi?.close();
  });

  describe.each(['/quotes', '/swap'])('POST %s', (path) => {
    const params = path === '/swap' ? swapParams : quoteParams;
    const post = (p: Body, extra: Body = {}) =>
      client.post(path, { mode: 'cross-chain', params: p, ...extra });

    it('lists each missing field', async () => {
      const required = [
        'fromChainId',
        'toChainId',
        'inTokenAddress',
        'outTokenAddress',
        'amount',
        'slippage',
      ];
      if (path === '/swap') required.push('account', 'aggregatorId');
      expectError(
        await post({}),
        400,
        'VALIDATION_ERROR',
        INVALID_BODY,
        required.map((field) => ({ field: `params.${field}`, message: 'Is required' })),
      );
    });

    it('refuses the same chain on both sides on params.toChainId', async () => {
      expectError(
        await post(params({ toChainId: 1, outTokenAddress: CHAIN1.WETH })),
        400,
        'VALIDATION_ERROR',
        INVALID_BODY,
        [
          {
            field: 'params.toChainId',
            message: 'Must differ from params.fromChainId (a swap on one chain is mode single-chain)',
          },
        ],
      );
    });

    it('refuses a chain that is not enabled, on each field', async () => {
      expectError(
        await post(params({ toChainId: 999 })),
        400,
        'VALIDATION_ERROR',
        'Chain 999 is not enabled',
        [{ field: 'params.toChainId', message: 'Chain 999 is not enabled' }],
      );
      expectError(
        await post(params({ fromChainId: 998, toChainId: 999 })),
        400,
        'VALIDATION_ERROR',
        'Chain 998 is not enabled',
        [
          { field: 'params.fromChainId', message: 'Chain 998 is not enabled' },
          { field: 'params.toChainId', message: 'Chain 999 is not enabled' },
        ],
      );
    });

    it('refuses a string chain id and an unknown top-level key', async () => {
      expectError(await post(params({ fromChainId: '1' })), 400, 'VALIDATION_ERROR', INVALID_BODY, [
        { field: 'params.fromChainId', message: 'Must be an integer' },
      ]);
      expectError(await post(params(), { extra: 1 }), 400, 'VALIDATION_ERROR', INVALID_BODY, [
        { field: 'extra', message: 'Is not allowed' },
      ]);
    });

    it('answers 422 NO_ROUTE for a token its chain does not list, and for a source chain without transfers', async () => {
      for (const p of [
        params({ inTokenAddress: UNLISTED }),
        params({ outTokenAddress: UNLISTED }),
        // Chain 1's USDC address means nothing on chain 137.
        params({ outTokenAddress: CHAIN1.USDC }),
        params({ fromChainId: 8453, inTokenAddress: BASE_USDC, toChainId: 1, outTokenAddress: CHAIN1.USDC }),
      ]) {
        expectError(await post(p), 422, 'NO_ROUTE', 'No route found for this pair and amount', []);
      }
    });

    it('holds the amount to its token on the source chain', async () => {
      expectError(await post(params({ amount: '1.0000001' })), 400, 'VALIDATION_ERROR', INVALID_BODY, [
        { field: 'params.amount', message: 'Must have at most 6 decimal places (USDC has 6 decimals)' },
      ]);
    });
  });

  describe('POST /swap', () => {
    it('rejects dryRun naming the field', async () => {
      const res = await client.post('/swap', { mode: 'cross-chain', params: swapParams({ dryRun: true }) });
      expectError(res, 400, 'VALIDATION_ERROR', INVALID_BODY, [
        {
          field: 'params.dryRun',
          message: 'Is not allowed on a cross-chain swap (dryRun applies to single-chain only)',
        },
      ]);
      const falsy = await client.post('/swap', {
        mode: 'cross-chain',
        params: swapParams({ dryRun: false }),
      });
      expect(falsy.status).toBe(400);
    });

    it('refuses an aggregatorId that is no cross-chain provider between the chains, listing the valid ones', async () => {
      for (const aggregatorId of ['uniswap-v2', 'tas-smart', 'tas-intent', 'LIFI']) {
        const res = await client.post('/swap', { mode: 'cross-chain', params: swapParams({ aggregatorId }) });
        expectError(res, 400, 'VALIDATION_ERROR', INVALID_BODY, [
          {
            field: 'params.aggregatorId',
            message: 'Must be one of: lifi (a cross-chain provider between these chains)',
          },
        ]);
      }
    });
  });

  describe('POST /quotes', () => {
    it('answers within its time budget when a provider never answers: 500 CROSS_CHAIN_QUOTE_ERROR', async () => {
      const started = Date.now();
      const res = await client.post('/quotes', { mode: 'cross-chain', params: quoteParams() });
      const elapsed = Date.now() - started;
      expectError(
        res,
        500,
        'CROSS_CHAIN_QUOTE_ERROR',
        'No cross-chain provider could quote this transfer now; retry with backoff',
        [{ message: 'lifi: no answer in time' }],
      );
      // The default budget is 3 s; LI.FI's own timeout here is 60 s.
      expect(elapsed).toBeGreaterThanOrEqual(2_900);
      expect(elapsed).toBeLessThan(10_000);
    });
  });

  describe('POST /tx-status', () => {
    const status = (body: Body) => client.post('/tx-status', body);
    const HASH = `0x${'ab'.repeat(32)}`;

    it('lists each missing field', async () => {
      expectError(await status({}), 400, 'VALIDATION_ERROR', INVALID_BODY, [
        { field: 'hash', message: 'Is required' },
        { field: 'chainId', message: 'Is required' },
        { field: 'dexHash', message: 'Is required' },
      ]);
    });

    it('refuses an unknown dexHash on the field, listing the known ones', async () => {
      for (const dexHash of ['0xabc', crossChainDexHash('tas-intent'), 'lifi']) {
        expectError(
          await status({ hash: HASH, chainId: 1, dexHash }),
          400,
          'VALIDATION_ERROR',
          INVALID_BODY,
          [
            {
              field: 'dexHash',
              message: `Must be the dexHash of a cross-chain swap: one of ${LIFI_DEX_HASH}`,
            },
          ],
        );
      }
    });

    it('refuses a chain that is not enabled and a malformed hash', async () => {
      expectError(
        await status({ hash: HASH, chainId: 999, dexHash: LIFI_DEX_HASH }),
        400,
        'VALIDATION_ERROR',
        'Chain 999 is not enabled',
        [{ field: 'chainId', message: 'Chain 999 is not enabled' }],
      );
      const malformed = await status({ hash: '0x1234', chainId: 1, dexHash: LIFI_DEX_HASH });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error?.details).toEqual([{ field: 'hash', message: expect.any(String) }]);
    });

    it('finds the provider by dexHash in any casing; no status from it is 500 TX_STATUS_ERROR', async () => {
      for (const dexHash of [LIFI_DEX_HASH, LIFI_DEX_HASH.toUpperCase().replace('0X', '0x')]) {
        const res = await status({ hash: HASH, chainId: 1, dexHash });
        expect(res.status).toBe(500);
        expect(res.body.error?.code).toBe('TX_STATUS_ERROR');
        expect(res.body.error?.message).toMatch(/503/);
        // The provider's URL is no part of what a client reads.
        expect(res.text).not.toContain(lifi.url);
      }
    });
  });
});
