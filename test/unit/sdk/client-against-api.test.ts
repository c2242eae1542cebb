import {
  AuthenticationError,
  ConflictError,
  NoRouteError,
  NotFoundError,
  TasClient,
  ValidationError,
  type Credentials,
  type RetryEvent,
} from '../../../sdk/src';
import { startApi, type RunningApi } from '../../helpers/api-harness';
import { createStoreTarget, type StoreTarget } from '../../helpers/store-targets';

// Tokens of config/tokenlists/1.json.
const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const MAKER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const SIGNATURE = `0x${'ab'.repeat(65)}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The SDK against the real api (gateway authentication and the service's body-hash check, in-process over real
 * HTTP): every call below is accepted only when the SDK signs exactly as the server verifies.
 */
describe('the SDK against the real api', () => {
  let target: StoreTarget;
  let running: RunningApi;
  let credentials: Credentials;
  let client: TasClient;
  const retries: RetryEvent[] = [];

  beforeAll(async () => {
    target = await createStoreTarget('sqlite');
    running = await startApi(target);
    await running.store.referencePrices.upsert([
      {
        chainId: 1,
        baseSymbol: 'WETH',
        quoteSymbol: 'USDC',
        price: '3000',
        blockNumber: 1,
        updatedAt: Date.now(),
      },
    ]);
    credentials = await TasClient.createAccount(`${running.baseUrl}`, {
      name: 'sdk-tester ünïcødé',
      password: 'pässwörd-12345',
    });
    client = new TasClient({
      baseUrl: running.baseUrl,
      credentials,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
      onRetry: (event) => retries.push(event),
    });
  });
  afterAll(async () => {
    await running?.close();
    await target?.cleanup();
  });
  beforeEach(() => {
    retries.length = 0;
  });

  it('creates an account: an API key ID, a secret key and the password as passphrase', () => {
    expect(running.baseUrl).toMatch(/\/api\/v1$/);
    expect(credentials).toEqual({
      apiKeyId: expect.stringMatching(UUID),
      secretKey: expect.any(String),
      passphrase: 'pässwörd-12345',
    });
    expect(credentials.secretKey.length).toBeGreaterThanOrEqual(32);
  });

  it('lists the chains and the tokens of a chain, and checks a chain', async () => {
    const chains = await client.chains();
    expect(chains).toEqual([...chains].sort((a, b) => a - b));
    expect(chains).toContain(1);
    const tokens = await client.tokens(1);
    expect(tokens).toContainEqual(expect.objectContaining({ address: WETH, symbol: 'WETH', decimals: 18 }));
    expect(tokens).toContainEqual(expect.objectContaining({ address: USDC, symbol: 'USDC', decimals: 6 }));
    expect(await client.supportChain(1)).toBe(true);
    expect(await client.supportChain(999_999)).toBe(false);
    expect(retries).toEqual([]);
  });

  it('signs non-ASCII body text as the raw UTF-8 bytes it sends', async () => {
    // Fields other than chainId are ignored by the endpoint, but hashed and verified like any other.
    const result = await client.request<boolean>('POST', '/support-chain', {
      body: { zeta: { b: 'ünïcødé ✓ 𝄞 "quoted" \\ \n', a: [3, 1.5, 1e21, 1e-7] }, chainId: 1, Alpha: null },
    });
    expect(result.data).toBe(true);
    expect(result.meta).toEqual({
      requestId: expect.any(String),
      version: 'v1',
      accountType: 'integrator',
      apiKeyId: credentials.apiKeyId,
    });
  });

  it('signs a nested body whose keys are given unsorted (a quote with fees)', async () => {
    // The in-process api has no pools: a signature the service accepted ends in 422 NO_ROUTE, not 403.
    const quote = client.quote({
      params: {
        slippage: '0.5',
        outTokenAddress: USDC,
        inTokenAddress: WETH,
        gasPrice: '20',
        chainId: 1,
        amount: '1',
      },
      mode: 'single-chain',
      fees: { feeRecipient: MAKER, feeBps: 25 },
    });
    await expect(quote).rejects.toBeInstanceOf(NoRouteError);
    await quote.catch((err: NoRouteError) => {
      expect(err).toMatchObject({ code: 'NO_ROUTE', status: 422, gateway: false, details: [] });
      expect(err.requestId).toEqual(expect.any(String));
    });
  });

  it('signs a query that needs percent-encoding and sends the filters as given', async () => {
    const odd = "0x a+b/é?&=!'()*~";
    expect(await client.listLimitOrders({ accountTo: odd, status: 'pending', chainId: 1 })).toEqual([]);
    expect(await client.listDcaStrategies({ accountTo: odd })).toEqual([]);
  });

  it('creates, lists, reads, updates and cancels a limit order', async () => {
    const expired = String(Date.now() + 86_400_000);
    const created = await client.createLimitOrder({
      signature: SIGNATURE,
      slippage: '0.5',
      gasPrice: '20',
      expired,
      price: '3500',
      priceTrigger: '3500',
      amount: '1.5',
      tokenBSymbol: 'USDC',
      tokenASymbol: 'WETH',
      outTokenAddress: USDC,
      inTokenAddress: WETH,
      chainId: 1,
      accountTo: MAKER,
    });
    expect(created).toEqual({
      id: expect.stringMatching(UUID),
      accountTo: MAKER,
      chainId: 1,
      gasPrice: '20',
      inTokenAddress: WETH,
      outTokenAddress: USDC,
      slippage: '0.5',
      tokenASymbol: 'WETH',
      tokenBSymbol: 'USDC',
      amount: 1.5,
      price: 3500,
      priceTrigger: 3500,
      expired,
      txHash: '',
      status: 'pending',
      reasonFail: [],
      attemptNumber: 0,
      allowance: '',
      estimateGas: '',
      effectivePriceGas: '',
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: expect.stringMatching(ISO_MS),
      deletedAt: '',
    });
    expect(await client.listLimitOrders({ status: 'pending', accountTo: MAKER })).toEqual([created]);
    expect(await client.listLimitOrders({ status: 'completed' })).toEqual([]);
    expect(await client.getLimitOrder(created.id)).toEqual(created);

    const updated = await client.updateLimitOrder(created.id, {
      priceTrigger: '3600',
      price: '3600',
      amount: '2',
    });
    expect(updated).toEqual({
      ...created,
      priceTrigger: 3600,
      price: 3600,
      amount: 2,
      updatedAt: expect.stringMatching(ISO_MS),
    });

    const cancelled = await client.cancelLimitOrder(created.id);
    expect(cancelled).toEqual({
      ...updated,
      status: 'cancelled',
      updatedAt: expect.stringMatching(ISO_MS),
      deletedAt: expect.stringMatching(ISO_MS),
    });

    const again = await client.cancelLimitOrder(created.id).catch((err: unknown) => err);
    expect(again).toBeInstanceOf(ConflictError);
    expect(again).toMatchObject({
      code: 'CONFLICT',
      status: 409,
      serverMessage: 'Limit order can only be modified while pending (current status: cancelled)',
      details: [],
      gateway: false,
    });
    expect(retries).toEqual([]);
  });

  it('creates, lists, cancels a DCA strategy and reads its orders', async () => {
    const strategy = await client.createDcaStrategy({
      signature: SIGNATURE,
      slippage: 1,
      frequency: 3600,
      iterations: 4,
      totalAmount: 2,
      pair: 'WETH/USDC',
      tokenSymbolTo: 'USDC',
      tokenSymbolFrom: 'WETH',
      tokenAddressTo: USDC,
      tokenAddressFrom: WETH,
      chainIdTo: 1,
      chainIdFrom: 1,
      accountTo: MAKER,
    });
    expect(strategy).toMatchObject({ accountTo: MAKER, totalAmount: 2, iterations: 4, status: 'active' });
    const listed = await client.listDcaStrategies({ accountTo: MAKER, status: 'active' });
    expect(listed.map((s) => s.id)).toEqual([strategy.id]);
    expect(await client.getDcaStrategy(strategy.id)).toEqual(strategy);
    const orders = await client.listDcaOrders(strategy.id);
    expect(Array.isArray(orders)).toBe(true);
    const cancelled = await client.cancelDcaStrategy(strategy.id);
    expect(cancelled).toEqual({ ...strategy, status: 'cancelled', updatedAt: expect.stringMatching(ISO_MS) });
  });

  it('turns a validation failure into a ValidationError with the server’s details, never retried', async () => {
    const err = await client.tokens(0).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({
      code: 'VALIDATION_ERROR',
      status: 400,
      serverMessage: 'Invalid query parameters',
      gateway: false,
    });
    const e = err as ValidationError;
    expect(e.details).toEqual([{ field: 'chainId', message: 'Has an invalid format' }]);
    expect(e.requestId).toEqual(expect.any(String));
    expect(e.message).toBe(
      `VALIDATION_ERROR (HTTP 400): Invalid query parameters [chainId: Has an invalid format] (request id ${e.requestId})`,
    );
    expect(retries).toEqual([]);
  });

  it('asks for the order authorization (a chain without an order contract is a ValidationError)', async () => {
    const err = await client
      .orderAuthorization({ chainId: 1, accountTo: MAKER, tokenIn: WETH, tokenOut: USDC })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({
      code: 'VALIDATION_ERROR',
      status: 400,
      serverMessage: 'Invalid query parameters',
      details: [
        {
          field: 'chainId',
          message: 'Limit orders and DCA do not execute on chain 1 (it has no order contract)',
        },
      ],
    });
  });

  it('refuses, before sending, a password no HTTP header can carry', async () => {
    let sent = 0;
    const err = await TasClient.createAccount(
      running.baseUrl,
      { name: 'sdk-tester-2', password: 'password-✓-123' },
      { fetch: (input, init) => ((sent += 1), fetch(input, init)) },
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'INVALID_CREDENTIALS',
      status: 0,
      message:
        'INVALID_CREDENTIALS (no HTTP response): the password cannot travel in an HTTP header: use printable Latin-1 characters, no spaces at either end',
    });
    expect(sent).toBe(0);
  });

  it('reports an unknown order as NotFoundError with the request id of the answer', async () => {
    const err = await client.getLimitOrder('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({
      code: 'NOT_FOUND',
      status: 404,
      serverMessage: 'Limit order not found',
      details: [],
      gateway: false,
      requestId: expect.any(String),
    });
  });

  it('retries a gateway 403 once, signed anew, then reports it', async () => {
    const wrong = client.withCredentials({ ...credentials, secretKey: `${credentials.secretKey}x` });
    const err = await wrong.chains().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err).toMatchObject({ code: 'FORBIDDEN', status: 403, serverMessage: 'Forbidden', gateway: true });
    expect((err as AuthenticationError).requestId).toEqual(expect.any(String));
    expect(retries.map((r) => [r.method, r.path, r.attempt, r.delayMs, r.error.code])).toEqual([
      ['GET', '/chains', 1, 0, 'FORBIDDEN'],
    ]);
    // The message never carries a credential.
    expect((err as Error).message).not.toContain(credentials.secretKey);
    expect((err as Error).message).not.toContain(credentials.passphrase);
  });
});
