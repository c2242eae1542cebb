import { Wallet } from 'ethers';
import {
  allowanceNeeded,
  Maker,
  numberToBaseUnitsCeil,
  signPairAuthorization,
  TasClient,
  toBaseUnits,
  type MakerWalletOptions,
  type OrderAuthorization,
} from '../../../sdk/src';
import { integratorOf, pairAuthorizationTypedData } from '../../../shared/domain/pair-authorization';
import { isValidPairSignature } from '../../../shared/domain/pair-signature';

// A well-known test key (anvil's account 3): never holds anything real.
const WALLET = new Wallet('0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6');
const EXECUTOR = '0x5FbdB2315678AfECb367F642d5cAa3f17aEcea0D';
const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const USDC_BRIDGED = '0x1111111111111111111111111111111111111111';

const CREDENTIALS = { apiKeyId: 'key', secretKey: 'secret', passphrase: 'passphrase' };

function authorization(over: Partial<OrderAuthorization> = {}): OrderAuthorization {
  // As the endpoint answers the calling key: the authorization is granted to its key id.
  const typedData = pairAuthorizationTypedData(
    1,
    EXECUTOR,
    { maker: WALLET.address, tokenIn: WETH, tokenOut: USDC },
    CREDENTIALS.apiKeyId,
    100,
  );
  return {
    chainId: 1,
    accountTo: WALLET.address,
    tokenIn: WETH,
    tokenOut: USDC,
    spender: EXECUTOR,
    typedData,
    allowance: '0',
    balance: '0',
    required: '0',
    estimatedFeePerOrder: '1000',
    maxFeeBps: 100,
    openLimitOrders: 0,
    activeStrategies: 0,
    validSignatureHeld: false,
    ...over,
  };
}

describe('signPairAuthorization', () => {
  it('signs the typed data of GET /order-authorization as the keeper and the contract verify it', async () => {
    const auth = authorization();
    const signature = await signPairAuthorization(WALLET, auth.typedData);
    expect(signature).toMatch(/^0x[0-9a-f]{130}$/);
    const checked = {
      chainId: 1,
      orderExecutor: EXECUTOR,
      maker: WALLET.address,
      tokenIn: WETH,
      tokenOut: USDC,
      integrator: integratorOf(CREDENTIALS.apiKeyId),
      maxDeviationBps: 0,
      maxFeeBps: 100,
      signature,
    };
    expect(auth.typedData.message).toEqual({
      maker: WALLET.address,
      tokenIn: WETH,
      tokenOut: USDC,
      integrator: integratorOf(CREDENTIALS.apiKeyId),
      maxDeviationBps: 0,
      maxFeeBps: 100,
    });
    expect(isValidPairSignature(checked)).toBe(true);
    // The fee cap is signed: a raised cap is another authorization.
    expect(isValidPairSignature({ ...checked, maxFeeBps: 200 })).toBe(false);
    // Another pair is another signature.
    expect(isValidPairSignature({ ...checked, tokenIn: USDC, tokenOut: WETH })).toBe(false);
    // Granted to this key only: an order another API key creates with it is refused.
    expect(isValidPairSignature({ ...checked, integrator: integratorOf('another-key') })).toBe(false);
  });
});

describe('allowanceNeeded', () => {
  it('adds the new amount and its estimated fee plus the buffer to what the open orders need', () => {
    const auth = authorization({ required: '5000000', estimatedFeePerOrder: '1000', maxFeeBps: 100 });
    // 5000000 + 1000000 + (1000 + 20 %) ; no open orders.
    expect(allowanceNeeded(auth, { adding: 1_000_000n })).toBe(6_001_200n);
    expect(allowanceNeeded(auth, { adding: 1_000_000n, bufferBps: 0 })).toBe(6_001_000n);
  });

  it('puts the buffer on one estimated fee per open order and active strategy too', () => {
    const auth = authorization({
      required: '0',
      estimatedFeePerOrder: '1000',
      openLimitOrders: 2,
      activeStrategies: 1,
    });
    expect(allowanceNeeded(auth)).toBe(600n);
    expect(allowanceNeeded(auth, { adding: 10_000_000n, newOrders: 4 })).toBe(10_000_000n + 4_800n + 600n);
  });

  it('never counts more fee than the contract’s cap, and counts the cap without an estimate', () => {
    // Fee estimate 50000 per order, but the cap is 1 % of 100000 = 1000.
    expect(
      allowanceNeeded(authorization({ estimatedFeePerOrder: '50000', maxFeeBps: 100 }), { adding: 100_000n }),
    ).toBe(101_000n);
    expect(
      allowanceNeeded(authorization({ estimatedFeePerOrder: null, maxFeeBps: 30 }), { adding: 100_001n }),
    ).toBe(100_001n + 301n);
    expect(allowanceNeeded(authorization({ estimatedFeePerOrder: null, required: '7' }))).toBe(7n);
  });
});

describe('amounts', () => {
  it('reads decimal strings in base units and refuses what the token cannot hold', () => {
    expect(toBaseUnits('0.5', 18)).toBe(500_000_000_000_000_000n);
    expect(toBaseUnits(' 1.25 ', 6)).toBe(1_250_000n);
    expect(() => toBaseUnits('1.0000001', 6)).toThrow(
      'INVALID_AMOUNT (no HTTP response): amount "1.0000001" is not a positive decimal with at most 6 fractional digits',
    );
    expect(() => toBaseUnits('0', 6)).toThrow(/INVALID_AMOUNT/);
    expect(() => toBaseUnits('abc', 6)).toThrow(/INVALID_AMOUNT/);
  });

  it('rounds JSON-number amounts up to base units', () => {
    expect(numberToBaseUnitsCeil(2, 18)).toBe(2_000_000_000_000_000_000n);
    expect(numberToBaseUnitsCeil(0.1, 6)).toBe(100_000n);
    expect(numberToBaseUnitsCeil(1e-7, 6)).toBe(1n);
    expect(numberToBaseUnitsCeil(1.5e-7, 18)).toBe(150_000_000_000n);
    expect(numberToBaseUnitsCeil(0.3, 18)).toBe(300_000_000_000_000_000n);
    expect(numberToBaseUnitsCeil(1.0000001, 6)).toBe(1_000_001n);
    expect(numberToBaseUnitsCeil(1e21, 0)).toBe(1_000_000_000_000_000_000_000n);
    expect(() => numberToBaseUnitsCeil(-1, 6)).toThrow(/INVALID_AMOUNT/);
  });
});

interface Call {
  method: string;
  path: string;
  query: string;
  body?: unknown;
}

/** A fetch answering the endpoints the Maker uses, recording each call. */
function fakeApi(auth: OrderAuthorization): { fetch: typeof fetch; calls: Call[] } {
  const calls: Call[] = [];
  const ok = (data: unknown): Response =>
    new Response(JSON.stringify({ success: true, data, meta: { requestId: 'r', version: 'v1' } }), {
      status: 200,
    });
  const fetchImpl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    const path = url.pathname.replace('/api/v1', '');
    calls.push({ method: init?.method ?? 'GET', path, query: url.search, body });
    if (path === '/tokens') {
      return ok({
        chainId: 1,
        tokens: [
          {
            address: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
            symbol: 'ETH',
            decimals: 18,
            name: 'Ether',
          },
          { address: WETH, symbol: 'WETH', decimals: 18, name: 'Wrapped Ether' },
          { address: USDC, symbol: 'USDC', decimals: 6, name: 'USD Coin' },
          { address: USDC_BRIDGED, symbol: 'usdc', decimals: 6, name: 'Bridged' },
          { address: '0x2222222222222222222222222222222222222222', symbol: 'DUP', decimals: 6, name: 'One' },
          { address: '0x3333333333333333333333333333333333333333', symbol: 'DUP', decimals: 6, name: 'Two' },
        ],
      });
    }
    if (path === '/order-authorization') return ok(auth);
    if (path === '/limit-order') return ok({ id: 'order-1', ...(body as object), status: 'pending' });
    if (path === '/dca-order/strategies')
      return ok({ id: 'strategy-1', ...(body as object), status: 'active' });
    return new Response(JSON.stringify({ message: 'Not Found' }), { status: 404 });
  };
  return { fetch: fetchImpl as typeof fetch, calls };
}

describe('Maker', () => {
  function makerOver(auth: OrderAuthorization): { maker: Maker; calls: Call[] } {
    const api = fakeApi(auth);
    const client = new TasClient({
      baseUrl: 'http://api.test/api/v1',
      credentials: CREDENTIALS,
      fetch: api.fetch,
    });
    return { maker: new Maker(client, WALLET), calls: api.calls };
  }

  function walletMakerOver(
    auth: OrderAuthorization,
    options: MakerWalletOptions,
  ): { maker: Maker; calls: Call[] } {
    const api = fakeApi(auth);
    const client = new TasClient({
      baseUrl: 'http://api.test/api/v1',
      credentials: CREDENTIALS,
      fetch: api.fetch,
    });
    return { maker: new Maker(client, WALLET, options), calls: api.calls };
  }

  it('creates a limit order from symbols: tokens resolved, pair signed, allowance already enough', async () => {
    const auth = authorization({ allowance: String(10n ** 21n) });
    const { maker, calls } = makerOver(auth);
    const before = Date.now();
    const order = await maker.createLimitOrder({
      chainId: 1,
      sell: 'weth',
      buy: 'USDC',
      amount: '0.5',
      priceTrigger: '1000',
    });
    expect(order).toMatchObject({ id: 'order-1', status: 'pending' });
    expect(calls.map((c) => `${c.method} ${c.path}${c.query}`)).toEqual([
      'GET /tokens?chainId=1',
      `GET /order-authorization?accountTo=${WALLET.address}&chainId=1&tokenIn=${WETH}&tokenOut=${USDC}`,
      'POST /limit-order',
    ]);
    const body = calls[2]!.body as Record<string, string>;
    expect(body).toEqual({
      accountTo: WALLET.address,
      chainId: 1,
      inTokenAddress: WETH,
      outTokenAddress: USDC,
      tokenASymbol: 'WETH',
      tokenBSymbol: 'USDC',
      amount: '0.5',
      priceTrigger: '1000',
      price: '1000',
      expired: expect.stringMatching(/^\d{13}$/),
      gasPrice: '30',
      slippage: '1',
      signature: await signPairAuthorization(WALLET, auth.typedData),
      // The cap the signature carries, so the keeper and the contract check it as signed.
      maxFeeBps: 100,
    });
    const expired = Number(body.expired);
    expect(expired).toBeGreaterThanOrEqual(before + 86_400_000);
    expect(expired).toBeLessThanOrEqual(Date.now() + 86_400_000);
  });

  it('creates a DCA strategy with the whole budget and a fee per iteration covered', async () => {
    const auth = authorization({ allowance: String(10n ** 21n) });
    const { maker, calls } = makerOver(auth);
    const strategy = await maker.createDcaStrategy({
      chainId: 1,
      sell: WETH.toLowerCase(),
      buy: USDC,
      totalAmount: 0.2,
      iterations: 2,
      frequency: 1,
      maxPrice: 5000,
    });
    expect(strategy).toMatchObject({ id: 'strategy-1', status: 'active' });
    expect(calls.at(-1)).toEqual({
      method: 'POST',
      path: '/dca-order/strategies',
      query: '',
      body: {
        accountTo: WALLET.address,
        chainIdFrom: 1,
        chainIdTo: 1,
        tokenAddressFrom: WETH,
        tokenAddressTo: USDC,
        tokenSymbolFrom: 'WETH',
        tokenSymbolTo: 'USDC',
        pair: 'WETH/USDC',
        totalAmount: 0.2,
        iterations: 2,
        frequency: 1,
        slippage: 1,
        maxPrice: 5000,
        signature: await signPairAuthorization(WALLET, auth.typedData),
        maxFeeBps: 100,
      },
    });
  });

  it('names tokens by exact symbol first, then case-insensitively, and refuses ambiguous or unknown ones', async () => {
    const { maker } = makerOver(authorization({ allowance: String(10n ** 21n) }));
    await expect(maker.authorization(1, 'WETH', 'usdc')).resolves.toMatchObject({ spender: EXECUTOR });
    await expect(maker.signPair(1, 'WETH', 'DUP')).rejects.toMatchObject({
      code: 'AMBIGUOUS_TOKEN',
      message:
        'AMBIGUOUS_TOKEN (no HTTP response): several tokens on chain 1 have the symbol DUP ' +
        '(0x2222222222222222222222222222222222222222, 0x3333333333333333333333333333333333333333): name it by address',
    });
    await expect(maker.signPair(1, 'WETH', 'NOPE')).rejects.toMatchObject({
      code: 'UNKNOWN_TOKEN',
      message: 'UNKNOWN_TOKEN (no HTTP response): no token NOPE in the token list of chain 1 (GET /tokens)',
    });
    await expect(
      maker.signPair(1, 'WETH', '0x4444444444444444444444444444444444444444'),
    ).rejects.toMatchObject({
      code: 'UNKNOWN_TOKEN',
    });
  });

  describe('a contract wallet as the maker (its owner key signing)', () => {
    const CONTRACT_WALLET = '0x5555555555555555555555555555555555555555';

    it('makes the wallet the maker of the authorization and the order, signing with the owner key', async () => {
      const auth = authorization({ accountTo: CONTRACT_WALLET, allowance: String(10n ** 21n) });
      const { maker, calls } = walletMakerOver(auth, { wallet: CONTRACT_WALLET.toLowerCase() });
      expect(await maker.address()).toBe(CONTRACT_WALLET);
      await maker.createLimitOrder({
        chainId: 1,
        sell: 'WETH',
        buy: 'USDC',
        amount: '0.5',
        priceTrigger: '1000',
      });
      expect(calls[1]!.query).toContain(`accountTo=${CONTRACT_WALLET}`);
      const body = calls[2]!.body as Record<string, string>;
      expect(body.accountTo).toBe(CONTRACT_WALLET);
      expect(body.signature).toBe(await signPairAuthorization(WALLET, auth.typedData));
    });

    it("sends a short allowance's approval through the given hook, exactly what is needed", async () => {
      const auth = authorization({ accountTo: CONTRACT_WALLET, allowance: '0', required: '0' });
      const approvals: Array<{ token: string; spender: string; amount: bigint }> = [];
      const { maker } = walletMakerOver(auth, {
        wallet: CONTRACT_WALLET,
        approve: (p) => {
          approvals.push(p);
          return Promise.resolve('0xabc');
        },
      });
      const ensured = await maker.ensureAllowance(1, 'WETH', 'USDC', { adding: 1_000_000n });
      expect(approvals).toEqual([{ token: WETH, spender: EXECUTOR, amount: ensured.needed }]);
      expect(ensured).toMatchObject({ allowance: ensured.needed, approvalTxHash: '0xabc' });
    });

    it('refuses with ALLOWANCE_SHORT, naming the approval, when no hook is given', async () => {
      const auth = authorization({ accountTo: CONTRACT_WALLET, allowance: '0', required: '0' });
      const { maker } = walletMakerOver(auth, { wallet: CONTRACT_WALLET });
      await expect(maker.ensureAllowance(1, 'WETH', 'USDC', { adding: 1_000_000n })).rejects.toMatchObject({
        code: 'ALLOWANCE_SHORT',
        message: expect.stringContaining(`the wallet ${CONTRACT_WALLET} must approve`),
      });
    });
  });

  it('reports the allowance it found enough without sending anything', async () => {
    const { maker } = makerOver(authorization({ allowance: '6001200', required: '5000000' }));
    await expect(maker.ensureAllowance(1, 'WETH', 'USDC', { adding: 1_000_000n })).resolves.toEqual({
      allowance: 6_001_200n,
      needed: 6_001_200n,
    });
  });
});
