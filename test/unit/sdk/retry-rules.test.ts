import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AuthenticationError,
  NetworkError,
  NoRouteError,
  RateLimitError,
  ServerError,
  TasClient,
  TasError,
  type Credentials,
  type RetryEvent,
} from '../../../sdk/src';
import { canonicalQuery } from '../../../shared/signing/canonical-query';
import {
  bodyHashOf,
  decodeValueInfo,
  hmacHex,
  signedMessage,
} from '../../../shared/signing/request-signature';

const CREDENTIALS: Credentials = {
  apiKeyId: '7d0c3a52-4a0e-4b8e-9c55-1f2a3b4c5d6e',
  secretKey: 'c2VjcmV0LWtleS1mb3ItdGVzdHM_not-base64-decoded',
  passphrase: 'passphrase-123',
};

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What the stub answers to one request: a status, headers and a body, or `drop` (socket destroyed, no answer). */
type Scripted = { status: number; body?: unknown; headers?: Record<string, string> } | 'drop' | 'hang';

const envelope = (data: unknown, requestId = 'req-ok'): unknown => ({
  success: true,
  data,
  meta: { requestId, version: 'v1', accountType: 'integrator', apiKeyId: CREDENTIALS.apiKeyId },
});

const serviceError = (
  code: string,
  message: string,
  details: unknown[] = [],
  requestId = 'req-err',
): { success: false; error: unknown; meta: unknown } => ({
  success: false,
  error: { code, message, details },
  meta: { requestId, version: 'v1' },
});

/** A local HTTP server answering a script, one entry per request, recording every request it received. */
class StubServer {
  readonly received: Received[] = [];
  private script: Scripted[] = [];
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      this.received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const next = this.script.shift() ?? { status: 500, body: { message: 'script exhausted' } };
      if (next === 'drop') return req.socket.destroy();
      if (next === 'hang') return;
      const text =
        next.body === undefined ? '' : typeof next.body === 'string' ? next.body : JSON.stringify(next.body);
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      res.end(text);
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/v1`;
  }

  answer(...script: Scripted[]): void {
    this.script = script;
    this.received.length = 0;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** The server's own checks on one received request: signature, body hash, fresh timestamp, nonce format. */
function expectSignedLikeTheServerVerifies(req: Received): { nonce: string; timestamp: string } {
  const info = decodeValueInfo(String(req.headers['x-value-info']));
  expect(info).toBeDefined();
  const { timestamp, nonce, bodyHash } = info!;
  expect(nonce).toMatch(/^[0-9a-f]{24}$/);
  expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(5);
  expect(bodyHash).toBe(bodyHashOf(req.body));
  const q = req.url.indexOf('?');
  const message = signedMessage({
    timestamp,
    nonce,
    method: req.method,
    path: q < 0 ? req.url : req.url.slice(0, q),
    query: q < 0 ? '' : canonicalQuery(req.url.slice(q + 1)),
    bodyHash,
  });
  expect(req.headers['x-signature']).toBe(hmacHex(CREDENTIALS.secretKey, message));
  expect(req.headers['x-api-key-id']).toBe(CREDENTIALS.apiKeyId);
  expect(req.headers['x-passphrase']).toBe(CREDENTIALS.passphrase);
  expect(req.headers['content-type']).toBe('application/json');
  return { nonce, timestamp };
}

describe('the SDK retry rules against a scripted server', () => {
  const stub = new StubServer();
  let baseUrl: string;
  let retries: RetryEvent[];
  let client: TasClient;

  beforeAll(async () => {
    baseUrl = await stub.start();
  });
  afterAll(() => stub.stop());
  beforeEach(() => {
    retries = [];
    client = new TasClient({
      baseUrl,
      credentials: CREDENTIALS,
      retry: { baseDelayMs: 4, maxDelayMs: 20 },
      onRetry: (event) => retries.push(event),
    });
  });

  /** Every attempt was signed anew: each verifies on its own and no two share a nonce. */
  function expectEachAttemptSignedAnew(count: number): void {
    expect(stub.received).toHaveLength(count);
    const nonces = stub.received.map((req) => expectSignedLikeTheServerVerifies(req).nonce);
    expect(new Set(nonces).size).toBe(count);
  }

  it('waits the Retry-After of a 429, then succeeds', async () => {
    stub.answer(
      {
        status: 429,
        body: { message: 'Too Many Requests' },
        headers: { 'retry-after': '1', 'apigw-requestid': 'gw-1' },
      },
      { status: 200, body: envelope({ chainIds: [1, 137] }) },
    );
    const started = Date.now();
    expect(await client.chains()).toEqual([1, 137]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ method: 'GET', path: '/chains', attempt: 1, delayMs: 1000 });
    expect(retries[0]!.error).toBeInstanceOf(RateLimitError);
    expect(retries[0]!.error).toMatchObject({
      code: 'TOO_MANY_REQUESTS',
      status: 429,
      gateway: true,
      requestId: 'gw-1',
      retryAfterSeconds: 1,
      serverMessage: 'Too Many Requests',
    });
    expectEachAttemptSignedAnew(2);
    expect(stub.received.map((r) => [r.method, r.url, r.body])).toEqual([
      ['GET', '/api/v1/chains', ''],
      ['GET', '/api/v1/chains', ''],
    ]);
  });

  it('backs off a 429 without Retry-After', async () => {
    stub.answer(
      { status: 429, body: { message: 'Too Many Requests' } },
      { status: 200, body: envelope(true) },
    );
    expect(await client.supportChain(1)).toBe(true);
    expect(retries.map((r) => r.delayMs)).toEqual([expect.any(Number)]);
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(2);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(4);
    expectEachAttemptSignedAnew(2);
  });

  it("waits at least a 503's Retry-After (the service's store briefly away), then succeeds", async () => {
    stub.answer(
      { status: 503, body: { message: 'Service Unavailable' }, headers: { 'retry-after': '1' } },
      { status: 200, body: envelope({ chainIds: [1] }) },
    );
    const started = Date.now();
    expect(await client.chains()).toEqual([1]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.delayMs).toBe(1000);
    expect(retries[0]!.error).toBeInstanceOf(ServerError);
    expect(retries[0]!.error).toMatchObject({ status: 503, gateway: true, retryAfterSeconds: 1 });
  });

  it('backs off a 503, signing the retry anew with the same body bytes', async () => {
    stub.answer(
      { status: 503, body: { message: 'Service Unavailable' }, headers: { 'apigw-requestid': 'gw-503' } },
      { status: 200, body: envelope(true) },
    );
    expect(await client.supportChain(137)).toBe(true);
    expectEachAttemptSignedAnew(2);
    expect(stub.received.map((r) => [r.method, r.url, r.body])).toEqual([
      ['POST', '/api/v1/support-chain', '{"chainId":137}'],
      ['POST', '/api/v1/support-chain', '{"chainId":137}'],
    ]);
    expect(retries[0]!.error).toBeInstanceOf(ServerError);
    expect(retries[0]!.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, gateway: true });
  });

  it('backs off 422 NO_ROUTE exponentially, then reports it after the last attempt', async () => {
    const noRoute = {
      status: 422,
      body: serviceError('NO_ROUTE', 'No route found for this pair and amount'),
    };
    stub.answer(noRoute, noRoute, noRoute, noRoute);
    const body = { mode: 'single-chain', params: { chainId: 1 } } as unknown as Parameters<
      TasClient['quote']
    >[0];
    const err = await client.quote(body).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoRouteError);
    expect(err).toMatchObject({
      code: 'NO_ROUTE',
      status: 422,
      requestId: 'req-err',
      gateway: false,
      details: [],
      message: 'NO_ROUTE (HTTP 422): No route found for this pair and amount (request id req-err)',
    });
    expectEachAttemptSignedAnew(4);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2, 3]);
    const [d1, d2, d3] = retries.map((r) => r.delayMs);
    expect(d1).toBeGreaterThanOrEqual(2);
    expect(d1).toBeLessThanOrEqual(4);
    expect(d2).toBeGreaterThanOrEqual(4);
    expect(d2).toBeLessThanOrEqual(8);
    expect(d3).toBeGreaterThanOrEqual(8);
    expect(d3).toBeLessThanOrEqual(16);
  });

  it('retries a gateway 403 once, then stops', async () => {
    const forbidden = {
      status: 403,
      body: { message: 'Forbidden' },
      headers: { 'apigw-requestid': 'gw-403' },
    };
    stub.answer(forbidden, forbidden, { status: 200, body: envelope({ chainIds: [1] }) });
    const err = await client.chains().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err).toMatchObject({
      code: 'FORBIDDEN',
      status: 403,
      gateway: true,
      requestId: 'gw-403',
      details: [],
      message: 'FORBIDDEN (HTTP 403): Forbidden (request id gw-403)',
    });
    expectEachAttemptSignedAnew(2);
    expect(retries.map((r) => r.delayMs)).toEqual([0]);
  });

  it('retries a gateway 401 once and succeeds', async () => {
    stub.answer(
      { status: 401, body: { message: 'Unauthorized' } },
      { status: 200, body: envelope({ chainIds: [1] }) },
    );
    expect(await client.chains()).toEqual([1]);
    expectEachAttemptSignedAnew(2);
  });

  it.each([
    [400, 'VALIDATION_ERROR', 'Invalid request body', [{ field: 'chainId', message: 'Must be an integer' }]],
    [401, 'UNAUTHORIZED', 'Unauthorized', []],
    [403, 'FORBIDDEN', 'Invalid body hash', []],
    [404, 'NOT_FOUND', 'Limit order not found', []],
    [409, 'CONFLICT', 'Limit order can only be modified while pending (current status: completed)', []],
    [422, 'SOMETHING_NEW', 'An unknown 422', []],
    [500, 'CROSS_CHAIN_SWAP_ERROR', 'Calldata could not be built', [{ message: 'provider said no' }]],
    [500, 'TX_STATUS_ERROR', 'No status yet', []],
  ])('never retries a service %i %s', async (status, code, message, details) => {
    stub.answer({
      status,
      body: serviceError(code, message, details, 'req-x'),
      headers: { 'apigw-requestid': 'req-x' },
    });
    const err = await client
      .request('PATCH', '/limit-order/abc', { body: { amount: '1' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TasError);
    expect(err).toMatchObject({
      code,
      status,
      serverMessage: message,
      details,
      requestId: 'req-x',
      gateway: false,
    });
    expect(retries).toEqual([]);
    expectEachAttemptSignedAnew(1);
  });

  it('retries SWAP_ERROR once', async () => {
    const swapError = { status: 500, body: serviceError('SWAP_ERROR', 'Calldata could not be built') };
    stub.answer(swapError, swapError, swapError);
    const body = { mode: 'single-chain', params: {} } as unknown as Parameters<TasClient['swap']>[0];
    const err = await client.swap(body).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'SWAP_ERROR', status: 500 });
    expectEachAttemptSignedAnew(2);
  });

  it('backs off service 5xx codes up to maxAttempts in all', async () => {
    const quoteError = {
      status: 500,
      body: serviceError('QUOTE_ERROR', 'Unexpected error producing a quote'),
    };
    stub.answer(quoteError, quoteError, quoteError, quoteError, quoteError);
    const err = await client.request('POST', '/quotes', { body: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ code: 'QUOTE_ERROR', status: 500 });
    expectEachAttemptSignedAnew(4);
  });

  it('does not retry at all with maxAttempts 1', async () => {
    const once = client.withCredentials(CREDENTIALS);
    const noRetry = new TasClient({ baseUrl, credentials: CREDENTIALS, retry: { maxAttempts: 1 } });
    stub.answer({ status: 503, body: { message: 'Service Unavailable' } });
    await expect(noRetry.chains()).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    expectEachAttemptSignedAnew(1);
    // withCredentials keeps the retry settings of the client it came from.
    stub.answer(
      { status: 503, body: { message: 'Service Unavailable' } },
      { status: 200, body: envelope({ chainIds: [] }) },
    );
    expect(await once.chains()).toEqual([]);
    expectEachAttemptSignedAnew(2);
  });

  it('retries a dropped connection on a read', async () => {
    stub.answer('drop', { status: 200, body: envelope({ chainId: 1, tokens: [] }) });
    expect(await client.tokens(1)).toEqual([]);
    expectEachAttemptSignedAnew(2);
    expect(stub.received.map((r) => r.url)).toEqual(['/api/v1/tokens?chainId=1', '/api/v1/tokens?chainId=1']);
    expect(retries[0]!.error).toBeInstanceOf(NetworkError);
    expect(retries[0]!.error).toMatchObject({ code: 'NETWORK_ERROR', status: 0, gateway: false });
  });

  it('gives up on an attempt after timeoutMs and retries it', async () => {
    const impatient = new TasClient({
      baseUrl,
      credentials: CREDENTIALS,
      timeoutMs: 100,
      retry: { maxAttempts: 2, baseDelayMs: 1 },
    });
    stub.answer('hang', 'hang');
    const err = await impatient.chains().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({
      code: 'NETWORK_ERROR',
      status: 0,
      message: 'NETWORK_ERROR (no HTTP response): no answer within 100 ms',
    });
    expectEachAttemptSignedAnew(2);
  });

  describe('never sends a create twice', () => {
    const order = {
      accountTo: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
      chainId: 1,
      inTokenAddress: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
      outTokenAddress: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
      tokenASymbol: 'WETH',
      tokenBSymbol: 'USDC',
      amount: '0.5',
      priceTrigger: '1000',
      price: '1000',
      expired: '1893456000000',
      gasPrice: '30',
      slippage: '1',
      signature: `0x${'ab'.repeat(65)}`,
    };

    it('POST /limit-order on a 503', async () => {
      stub.answer(
        { status: 503, body: { message: 'Service Unavailable' } },
        { status: 200, body: envelope({}) },
      );
      await expect(client.createLimitOrder(order)).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        status: 503,
      });
      expectEachAttemptSignedAnew(1);
      expect(stub.received[0]!.body).toBe(
        '{"accountTo":"0x90F79bf6EB2c4f870365E785982E1f101E93b906","amount":"0.5","chainId":1,"expired":"1893456000000",' +
          '"gasPrice":"30","inTokenAddress":"0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2",' +
          '"outTokenAddress":"0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48","price":"1000","priceTrigger":"1000",' +
          `"signature":"0x${'ab'.repeat(65)}","slippage":"1","tokenASymbol":"WETH","tokenBSymbol":"USDC"}`,
      );
      expect(retries).toEqual([]);
    });

    it('POST /limit-order through request(), whatever the path looks like', async () => {
      for (const path of ['/limit-order', 'limit-order', '/limit-order/', '/limit-order?source=x']) {
        stub.answer(
          { status: 503, body: { message: 'Service Unavailable' } },
          { status: 200, body: envelope({}) },
        );
        await expect(client.request('POST', path, { body: order })).rejects.toMatchObject({ status: 503 });
        expectEachAttemptSignedAnew(1);
      }
      expect(retries).toEqual([]);
    });

    it('POST /limit-order on a dropped connection', async () => {
      stub.answer('drop', { status: 200, body: envelope({}) });
      const err = await client.createLimitOrder(order).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expectEachAttemptSignedAnew(1);
    });

    it('POST /dca-order/strategies on a 500 and on a 429', async () => {
      const strategy = {
        accountTo: order.accountTo,
        chainIdFrom: 1,
        chainIdTo: 1,
        tokenAddressFrom: order.inTokenAddress,
        tokenAddressTo: order.outTokenAddress,
        tokenSymbolFrom: 'WETH',
        tokenSymbolTo: 'USDC',
        pair: 'WETH/USDC',
        totalAmount: 1,
        iterations: 2,
        frequency: 60,
        slippage: 1,
        signature: order.signature,
      };
      stub.answer({ status: 500, body: serviceError('INTERNAL_ERROR', 'Unexpected internal error') });
      await expect(client.createDcaStrategy(strategy)).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
      expectEachAttemptSignedAnew(1);
      stub.answer({ status: 429, body: { message: 'Too Many Requests' }, headers: { 'retry-after': '0' } });
      await expect(client.createDcaStrategy(strategy)).rejects.toBeInstanceOf(RateLimitError);
      expectEachAttemptSignedAnew(1);
      expect(retries).toEqual([]);
    });

    it('POST /accounts on a 503 or a dropped connection, unsigned', async () => {
      stub.answer(
        { status: 503, body: { message: 'Service Unavailable' } },
        { status: 200, body: envelope({}) },
      );
      const account = { name: 'someone', password: 'password-1' };
      await expect(
        TasClient.createAccount(baseUrl, account, { retry: { baseDelayMs: 1 } }),
      ).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
      });
      expect(stub.received).toHaveLength(1);
      expect(stub.received[0]).toMatchObject({
        method: 'POST',
        url: '/api/v1/accounts',
        body: '{"name":"someone","password":"password-1"}',
      });
      expect(stub.received[0]!.headers['content-type']).toBe('application/json');
      expect(stub.received[0]!.headers['x-signature']).toBeUndefined();
      stub.answer('drop', { status: 200, body: envelope({}) });
      await expect(TasClient.createAccount(baseUrl, account)).rejects.toBeInstanceOf(NetworkError);
      expect(stub.received).toHaveLength(1);
    });
  });

  describe('errors', () => {
    it('takes the request id from meta.requestId before the header', async () => {
      stub.answer({
        status: 400,
        body: serviceError(
          'VALIDATION_ERROR',
          'Invalid request body',
          [{ field: 'params.amount', message: 'Required' }],
          'meta-id',
        ),
        headers: { 'apigw-requestid': 'header-id' },
      });
      const err = await client.request('POST', '/quotes', { body: {} }).catch((e: unknown) => e);
      expect(err).toMatchObject({
        name: 'ValidationError',
        code: 'VALIDATION_ERROR',
        status: 400,
        requestId: 'meta-id',
        details: [{ field: 'params.amount', message: 'Required' }],
        message:
          'VALIDATION_ERROR (HTTP 400): Invalid request body [params.amount: Required] (request id meta-id)',
      });
    });

    it('reports an answer that is neither envelope nor gateway JSON by its status', async () => {
      stub.answer({
        status: 502,
        body: '<html>bad gateway</html>',
        headers: { 'content-type': 'text/html' },
      });
      const err = await new TasClient({ baseUrl, credentials: CREDENTIALS, retry: { maxAttempts: 1 } })
        .chains()
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServerError);
      expect(err).toMatchObject({
        code: 'HTTP_502',
        status: 502,
        gateway: false,
        serverMessage: '<html>bad gateway</html>',
        requestId: undefined,
      });
    });

    it('joins a query written in the path with the query parameters, and signs what it sends', async () => {
      stub.answer({ status: 200, body: envelope([]) });
      expect(
        (await client.request('GET', '/limit-order?status=pending', { query: { chainId: 1 } })).data,
      ).toEqual([]);
      expect(stub.received.map((r) => r.url)).toEqual(['/api/v1/limit-order?status=pending&chainId=1']);
      expectEachAttemptSignedAnew(1);
    });

    it('refuses a signed call without credentials before sending', async () => {
      stub.answer();
      const err = await new TasClient({ baseUrl }).chains().catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'MISSING_CREDENTIALS', status: 0 });
      expect(stub.received).toHaveLength(0);
    });
  });
});
