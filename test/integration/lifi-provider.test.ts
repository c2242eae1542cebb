/**
 * The LI.FI provider against a local server replaying recorded LI.FI answers (test/fixtures/lifi): the exact query
 * LI.FI receives, how its answers map onto our quote, swap and transfer status, and every failure path.
 */
import { join } from 'node:path';
import { inspect } from 'node:util';
import { keccak256, toUtf8Bytes } from 'ethers';
import type { LifiConfig } from '../../shared/config/config-schema';
import { NATIVE_TOKEN_ADDRESS } from '../../shared/domain/addresses';
import {
  NoTransferStatus,
  type CrossChainRequest,
  type CrossChainSwapRequest,
  type TransferToken,
} from '../../shared/bridges/cross-chain-provider';
import { LifiError } from '../../shared/bridges/lifi/lifi-error';
import { createLifiProvider, LIFI_QUOTE_ADDRESS } from '../../shared/bridges/lifi/lifi-provider';
import {
  loadExchange,
  startReplayServer,
  type RecordedExchange,
  type ReplayRoute,
  type ReplayServer,
} from '../helpers/replay-server';

const fixture = (name: string): RecordedExchange => loadExchange(join(__dirname, '../fixtures/lifi', name));

const API_KEY = 'lifi-test-key-5f0c2a9e1d7b4c3a';
const ACCOUNT = '0x942Bcc881C8bD5701B751826A28943fEDfc6a46a';
const DIAMOND = '0x1231DEB6f5749EF6cE6943a275A1D3E7486F4EaE';

const USDC_1: TransferToken = {
  chainId: 1,
  address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
  symbol: 'USDC',
  decimals: 6,
  native: false,
};
const USDC_137: TransferToken = {
  chainId: 137,
  address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  symbol: 'USDC',
  decimals: 6,
  native: false,
};
const ETH_1: TransferToken = {
  chainId: 1,
  address: NATIVE_TOKEN_ADDRESS,
  symbol: 'ETH',
  decimals: 18,
  native: true,
};

/** 1000 USDC from Ethereum to Polygon, 0.5% slippage, our 15 bps plus the integrator's 25 bps. */
const usdcRequest: CrossChainRequest = {
  fromChainId: 1,
  toChainId: 137,
  tokenIn: USDC_1,
  tokenOut: USDC_137,
  amountIn: 1_000_000_000n,
  slippage: '0.5',
  protocolFeePips: 1500,
  integratorFeeBps: 25,
  integratorFeeRecipient: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
};
const usdcSwap: CrossChainSwapRequest = { ...usdcRequest, account: ACCOUNT, now: Date.now() };

/** 0.5 ETH from Ethereum to USDC on Polygon, 1% slippage, our 15 bps only (an unsigned request). */
const ethRequest: CrossChainRequest = {
  fromChainId: 1,
  toChainId: 137,
  tokenIn: ETH_1,
  tokenOut: USDC_137,
  amountIn: 500_000_000_000_000_000n,
  slippage: '1',
  protocolFeePips: 1500,
  integratorFeeBps: 0,
};
const ethSwap: CrossChainSwapRequest = { ...ethRequest, account: ACCOUNT, now: Date.now() };

/** A recorded swap-time exchange replayed for a quote, which LI.FI gets without an account. */
function asQuoteTime(exchange: RecordedExchange): RecordedExchange {
  const query = { ...without(exchange.request.query, 'toAddress'), fromAddress: LIFI_QUOTE_ADDRESS };
  return { ...exchange, request: { ...exchange.request, query } };
}

function without(query: Record<string, string>, key: string): Record<string, string> {
  return Object.fromEntries(Object.entries(query).filter(([name]) => name !== key));
}

/** The exchange with another answer (status and body) to the same request. */
function answering(exchange: RecordedExchange, status: number, body: unknown): ReplayRoute {
  return { request: exchange.request, response: { status, body } };
}

/** The recorded quote body with one change, for answers LI.FI should never give. */
function tamperedQuote(change: (body: Record<string, unknown>) => void): ReplayRoute {
  const exchange = asQuoteTime(fixture('quote-usdc-1-to-usdc-137.json'));
  const body = structuredClone(exchange.response.body) as Record<string, unknown>;
  change(body);
  return answering(exchange, 200, body);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

let server: ReplayServer;

beforeAll(async () => {
  server = await startReplayServer();
});

afterEach(() => {
  // A request the recordings did not expect means the provider asked LI.FI something else than documented.
  expect(server.unmatched()).toEqual([]);
  server.reset();
});

afterAll(async () => {
  await server.close();
});

const config = (overrides: Partial<LifiConfig> = {}): LifiConfig => ({
  apiUrl: server.url,
  apiKey: API_KEY,
  integrator: 'tas',
  timeoutMs: 2000,
  ...overrides,
});

describe('LI.FI provider identity', () => {
  it('is `lifi` with the dexHash keccak256("tas-cross-chain:lifi") in lowercase, and leaves the pairs to LI.FI', () => {
    const provider = createLifiProvider(config());
    expect(provider.id).toBe('lifi');
    expect(provider.dexHash).toBe(keccak256(toUtf8Bytes('tas-cross-chain:lifi')).toLowerCase());
    expect(provider.dexHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(provider.serves(1, 137)).toBe(true);
    expect(provider.serves(137, 42161)).toBe(true);
    expect(provider.serves(1, 1)).toBe(false);
  });

  it('cannot be built without an API URL', () => {
    expect(() => createLifiProvider(config({ apiUrl: '' }))).toThrow(/LIFI_API_URL/);
  });
});

describe('LI.FI quotes', () => {
  it('asks GET /v1/quote with our fees as the integrator fee, slippage as a fraction and the API key', async () => {
    server.add(asQuoteTime(fixture('quote-usdc-1-to-usdc-137.json')));
    const quote = await createLifiProvider(config()).quote(usdcRequest);

    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/v1/quote');
    expect(request.query).toEqual({
      fromChain: '1',
      toChain: '137',
      fromToken: USDC_1.address,
      toToken: USDC_137.address,
      fromAmount: '1000000000',
      fromAddress: LIFI_QUOTE_ADDRESS,
      slippage: '0.005',
      integrator: 'tas',
      // 1500 pips (0.15%) + 25 bps (0.25%)
      fee: '0.004',
      order: 'CHEAPEST',
    });
    expect(request.headers['x-lifi-api-key']).toBe(API_KEY);

    expect(quote).toEqual({
      providerId: 'lifi',
      bridgeName: 'AcrossV4',
      amountOut: 993_187_413n,
      minimumReceived: 988_221_475n,
      protocolFeeAmount: 1_500_000n,
      integratorFeeAmount: 2_500_000n,
      estimatedGas: 185_000n,
      // LIFI fixed fee 2.4990 + integrator fee 3.9984 + relayer fee 0.3125 + gas 2.7636
      estimateCostInUSD: '9.5735',
      estimatedSeconds: 12,
      route: [
        { chainId: 1, address: USDC_1.address, symbol: 'USDC', decimals: 6 },
        { chainId: 137, address: USDC_137.address, symbol: 'USDC', decimals: 6 },
      ],
    });
  });

  it('sends the native coin as the zero address and reports the route LI.FI takes', async () => {
    server.add(asQuoteTime(fixture('quote-eth-1-to-usdc-137.json')));
    const quote = await createLifiProvider(config()).quote(ethRequest);

    const [request] = server.requests;
    expect(request.query.fromToken).toBe('0x0000000000000000000000000000000000000000');
    expect(request.query.slippage).toBe('0.01');
    expect(request.query.fee).toBe('0.0015');
    expect(quote).toMatchObject({
      bridgeName: 'Relay',
      amountOut: 1_576_419_873n,
      minimumReceived: 1_560_655_674n,
      protocolFeeAmount: 750_000_000_000_000n,
      integratorFeeAmount: 0n,
      estimatedGas: 121_000n,
      estimateCostInUSD: '8.492',
      estimatedSeconds: 6,
      route: [
        { chainId: 1, address: '0x0000000000000000000000000000000000000000', symbol: 'ETH', decimals: 18 },
        { chainId: 137, address: USDC_137.address, symbol: 'USDC', decimals: 6 },
      ],
    });
  });

  it('sends no fee when there is none to take, and no API key header when none is configured', async () => {
    const recorded = asQuoteTime(fixture('quote-usdc-1-to-usdc-137.json'));
    server.add({
      ...recorded,
      request: { ...recorded.request, query: without(recorded.request.query, 'fee') },
    });
    const quote = await createLifiProvider(config({ apiKey: '' })).quote({
      ...usdcRequest,
      protocolFeePips: 0,
      integratorFeeBps: 0,
    });

    const [request] = server.requests;
    expect(request.query).not.toHaveProperty('fee');
    expect(request.headers).not.toHaveProperty('x-lifi-api-key');
    expect(quote?.protocolFeeAmount).toBe(0n);
    expect(quote?.integratorFeeAmount).toBe(0n);
  });

  it('answers undefined when LI.FI has no route (404, code 1002)', async () => {
    const noRoute = fixture('quote-no-route.json');
    server.add(noRoute);
    const provider = createLifiProvider(config());
    await expect(provider.quote({ ...usdcRequest, amountIn: 1000n })).resolves.toBeUndefined();

    // The same answer to a swap request: no route any more.
    server.add(
      answering(
        {
          ...noRoute,
          request: {
            ...noRoute.request,
            query: { ...noRoute.request.query, fromAddress: ACCOUNT, toAddress: ACCOUNT },
          },
        },
        404,
        noRoute.response.body,
      ),
    );
    await expect(provider.buildSwap({ ...usdcSwap, amountIn: 1000n })).resolves.toBeUndefined();
    expect(server.requests).toHaveLength(2);
  });

  it('gives up after the configured timeout and throws', async () => {
    server.add({ ...asQuoteTime(fixture('quote-usdc-1-to-usdc-137.json')), hang: true });
    const provider = createLifiProvider(config({ timeoutMs: 300 }));
    const started = Date.now();
    const error = await rejection(provider.quote(usdcRequest));
    const elapsed = Date.now() - started;

    expect(error).toBeInstanceOf(LifiError);
    expect(error).toMatchObject({ kind: 'unavailable', httpStatus: null });
    expect((error as Error).message).toBe('LI.FI /v1/quote did not answer within 300 ms');
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(1300);
  });

  it('takes a slow answer that still comes within the timeout', async () => {
    server.add({ ...asQuoteTime(fixture('quote-usdc-1-to-usdc-137.json')), delayMs: 150 });
    const quote = await createLifiProvider(config({ timeoutMs: 2000 })).quote(usdcRequest);
    expect(quote?.amountOut).toBe(993_187_413n);
  });

  it.each([
    [503, { message: 'Service Unavailable' }, 'unavailable', null],
    [500, { message: 'Internal server error', code: 1006 }, 'unavailable', 1006],
    [429, { message: 'Too many requests', code: 1005 }, 'rate-limited', 1005],
    [400, { message: 'Invalid toToken', code: 1011 }, 'rejected', 1011],
  ])('throws on HTTP %i (%j) as %s', async (status, body, kind, code) => {
    server.add(answering(asQuoteTime(fixture('quote-usdc-1-to-usdc-137.json')), status, body));
    const error = await rejection(createLifiProvider(config()).quote(usdcRequest));
    expect(error).toBeInstanceOf(LifiError);
    expect(error).toMatchObject({ kind, httpStatus: status, code });
    expect((error as Error).message).toContain(`LI.FI /v1/quote answered ${status}`);
    expect((error as Error).message).toContain(body.message);
  });

  it('throws when LI.FI cannot be reached at all', async () => {
    const closed = await startReplayServer();
    const url = closed.url;
    await closed.close();
    const error = await rejection(createLifiProvider(config({ apiUrl: url })).quote(usdcRequest));
    expect(error).toMatchObject({
      kind: 'unavailable',
      message: 'LI.FI /v1/quote unreachable: ECONNREFUSED',
    });
  });

  it.each([
    ['a body that is not JSON', 'upstream proxy error', /the body is not JSON/],
    [
      'an amount sent as a number',
      tamper((body) => set(body, ['estimate', 'toAmount'], 993187413)),
      /estimate\.toAmount is not a non-empty string/,
    ],
    [
      'a missing toAmountMin',
      tamper((body) => set(body, ['estimate', 'toAmountMin'], undefined)),
      /estimate\.toAmountMin/,
    ],
    [
      'a malformed gas cost',
      tamper((body) => set(body, ['estimate', 'gasCosts', 0, 'estimate'], '18.5e4')),
      /estimate\.gasCosts\[0\]\.estimate is not an integer string/,
    ],
    [
      'another destination chain',
      tamper((body) => set(body, ['action', 'toChainId'], 10)),
      /does not match the request: toChainId/,
    ],
    [
      'other output decimals',
      tamper((body) => set(body, ['action', 'toToken', 'decimals'], 18)),
      /does not match the request: toToken/,
    ],
    [
      'another input amount',
      tamper((body) => set(body, ['estimate', 'fromAmount'], '999000000')),
      /does not match the request: fromAmount/,
    ],
    [
      'a minimum above the output',
      tamper((body) => set(body, ['estimate', 'toAmountMin'], '993187414')),
      /toAmountMin above toAmount/,
    ],
  ])('throws bad-response for %s', async (_case, body, message) => {
    server.add(answering(asQuoteTime(fixture('quote-usdc-1-to-usdc-137.json')), 200, body));
    const error = await rejection(createLifiProvider(config()).quote(usdcRequest));
    expect(error).toBeInstanceOf(LifiError);
    expect(error).toMatchObject({ kind: 'bad-response' });
    expect((error as Error).message).toMatch(message);
  });

  it('never repeats the API key, even when LI.FI echoes it', async () => {
    const provider = createLifiProvider(config());
    for (const status of [401, 500]) {
      server.add(
        answering(asQuoteTime(fixture('quote-usdc-1-to-usdc-137.json')), status, {
          message: `Invalid API key: ${API_KEY}`,
          code: 1010,
        }),
      );
      const error = await rejection(provider.quote(usdcRequest));
      expect(error).toBeInstanceOf(LifiError);
      expect((error as Error).message).toContain('Invalid API key: [redacted]');
      expect(inspect(error)).not.toContain(API_KEY);
      expect(JSON.stringify(error)).not.toContain(API_KEY);
      server.reset();
    }
  });
});

/** The recorded USDC quote body with one change applied. */
function tamper(change: (body: Record<string, unknown>) => void): unknown {
  return tamperedQuote(change).response.body;
}

function set(target: Record<string, unknown>, path: (string | number)[], value: unknown): void {
  let node: Record<string | number, unknown> = target;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (value === undefined) delete node[last];
  else node[last] = value;
}

describe('LI.FI swaps', () => {
  it('builds the ERC-20 transaction LI.FI returns for the account, with LI.FI as the spender', async () => {
    const recorded = fixture('quote-usdc-1-to-usdc-137.json');
    server.add(recorded);
    const swap = await createLifiProvider(config()).buildSwap(usdcSwap);

    const [request] = server.requests;
    expect(request.query).toEqual(recorded.request.query);
    expect(request.query.fromAddress).toBe(ACCOUNT);
    expect(request.query.toAddress).toBe(ACCOUNT);
    const tx = (recorded.response.body as { transactionRequest: { data: string } }).transactionRequest;
    expect(swap).toEqual({
      to: DIAMOND,
      data: tx.data,
      value: 0n,
      contractToApprove: DIAMOND,
      estimatedGas: 0x3ab74n,
      amountOut: 993_187_413n,
      minimumReceived: 988_221_475n,
    });
  });

  it('builds a native-coin transaction: the value is the amount, nothing to approve', async () => {
    const recorded = fixture('quote-eth-1-to-usdc-137.json');
    server.add(recorded);
    const swap = await createLifiProvider(config()).buildSwap(ethSwap);

    expect(server.requests[0].query).toEqual(recorded.request.query);
    expect(swap).toMatchObject({
      to: DIAMOND,
      value: 500_000_000_000_000_000n,
      estimatedGas: 0x26674n,
      amountOut: 1_576_419_873n,
      minimumReceived: 1_560_655_674n,
    });
    expect(swap).not.toHaveProperty('contractToApprove');
  });

  it.each([
    ['no transactionRequest', ['transactionRequest'], undefined, /no transactionRequest/],
    ['a transaction for another chain', ['transactionRequest', 'chainId'], 137, /for chain 137/],
    [
      'a transaction from another sender',
      ['transactionRequest', 'from'],
      DIAMOND,
      /not built for the account/,
    ],
    ['another recipient', ['action', 'toAddress'], DIAMOND, /pays another recipient/],
    ['no spender for an ERC-20 input', ['estimate', 'approvalAddress'], undefined, /no approvalAddress/],
    [
      'hex data of odd length',
      ['transactionRequest', 'data'],
      '0x123',
      /transactionRequest\.data is not hex data/,
    ],
  ])('refuses a swap with %s', async (_case, path, value, message) => {
    const recorded = fixture('quote-usdc-1-to-usdc-137.json');
    const body = structuredClone(recorded.response.body) as Record<string, unknown>;
    set(body, path as (string | number)[], value);
    server.add(answering(recorded, 200, body));
    const error = await rejection(createLifiProvider(config()).buildSwap(usdcSwap));
    expect(error).toMatchObject({ kind: 'bad-response' });
    expect((error as Error).message).toMatch(message);
  });
});

describe('LI.FI transfer status', () => {
  const statusOf = async (name: string): Promise<unknown> => {
    const recorded = fixture(name);
    server.add(recorded);
    const hash = recorded.request.query.txHash;
    const report = await createLifiProvider(config()).status({ hash, chainId: 1 });
    expect(server.requests[0].query).toEqual({ txHash: hash, fromChain: '1' });
    expect(server.requests[0].headers['x-lifi-api-key']).toBe(API_KEY);
    return report;
  };

  it('DONE / COMPLETED: both legs, amounts and tokens as LI.FI reports them', async () => {
    await expect(statusOf('status-done-completed.json')).resolves.toEqual({
      fromChainId: 1,
      toChainId: 137,
      fromTxHash: '0xc877db557eefaf33eb21c57fcd0e7b413c94881c1649d0c3dba22010b292e0fa',
      toTxHash: '0xa8b81cb73af78bc6223acf596dd926aa30c45bdf9a77e482ef9f24426a6855b8',
      fromAmount: '1000000000',
      toAmount: '993235624',
      fromTokenAddress: USDC_1.address,
      toTokenAddress: USDC_137.address,
      bridgeHash: '0x32ba4dfa5a3e3a5bed553f90c123d5192907d4af1d674e98aceda9d2a24fd694',
      status: 'DONE',
      detailStatus: 'COMPLETED',
    });
  });

  it('PENDING / WAIT_DESTINATION_TRANSACTION: the destination leg not there yet', async () => {
    await expect(statusOf('status-pending-wait-destination.json')).resolves.toEqual({
      fromChainId: 1,
      toChainId: 137,
      fromTxHash: '0x459b19062655a636c041dbe5b3ffabc0c1dde061330911de648fc5d720bb0b91',
      toTxHash: null,
      fromAmount: '1000000000',
      toAmount: null,
      fromTokenAddress: USDC_1.address,
      toTokenAddress: null,
      bridgeHash: '0x459b19062655a636c041dbe5b3ffabc0c1dde061330911de648fc5d720bb0b91',
      status: 'PENDING',
      detailStatus: 'WAIT_DESTINATION_TRANSACTION',
    });
  });

  const refunded = {
    fromChainId: 1,
    // The refund arrives on the source chain, in the source token.
    toChainId: 1,
    fromTxHash: '0x186598cb41794fdec5c8a4361de201b79f31e59e178ba8745079f3db38025dfd',
    toTxHash: '0xcf69faf3148eb8867dedffa88bf2ca5e5d4b2e8f70a7586d2578775ba91fb386',
    fromAmount: '1000000000',
    toAmount: '993500000',
    fromTokenAddress: USDC_1.address,
    toTokenAddress: USDC_1.address,
    bridgeHash: '0xa3f1c7e29b5d4e6f8a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f',
    status: 'FAILED',
    detailStatus: 'REFUNDED',
  };

  it('FAILED / REFUNDED: a failure value with the refund as the receiving leg', async () => {
    await expect(statusOf('status-failed-refunded.json')).resolves.toEqual(refunded);
  });

  it('DONE / REFUNDED: reported as FAILED, never as a success value', async () => {
    await expect(statusOf('status-done-refunded.json')).resolves.toEqual(refunded);
  });

  it('NOT_FOUND: no status yet', async () => {
    const error = await rejection(statusOf('status-not-found.json'));
    expect(error).toBeInstanceOf(NoTransferStatus);
    expect((error as Error).message).toBe('LI.FI does not know this transaction yet');
  });

  it.each([
    [404, { message: 'Transaction not found', code: 1003 }, 'LI.FI does not know this transaction yet'],
    [
      503,
      { message: `Service Unavailable for ${API_KEY}` },
      'LI.FI /v1/status answered 503: Service Unavailable for [redacted]',
    ],
    [
      200,
      { status: 'SOMETHING_NEW' },
      'LI.FI status: status is not one of NOT_FOUND, INVALID, PENDING, DONE, FAILED',
    ],
  ])('HTTP %i %j: no status, the key never repeated', async (status, body, message) => {
    const recorded = fixture('status-done-completed.json');
    server.add(answering(recorded, status, body));
    const error = await rejection(
      createLifiProvider(config()).status({ hash: recorded.request.query.txHash, chainId: 1 }),
    );
    expect(error).toBeInstanceOf(NoTransferStatus);
    expect((error as Error).message).toBe(message);
    expect(inspect(error)).not.toContain(API_KEY);
  });

  it('times out within the budget with no status', async () => {
    const recorded = fixture('status-pending-wait-destination.json');
    server.add({ ...recorded, hang: true });
    const started = Date.now();
    const error = await rejection(
      createLifiProvider(config({ timeoutMs: 250 })).status({
        hash: recorded.request.query.txHash,
        chainId: 1,
      }),
    );
    expect(error).toBeInstanceOf(NoTransferStatus);
    expect((error as Error).message).toBe('LI.FI /v1/status did not answer within 250 ms');
    expect(Date.now() - started).toBeLessThan(1250);
  });
});
