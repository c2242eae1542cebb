import { accountBody, createAccount } from '../factories/accounts';
import { dcaStrategyBody, dcaStrategyTokens } from '../factories/dca-strategies';
import { CHAIN_1, CHAIN_137, FACTORY_MAKER } from '../factories/defaults';
import { limitOrderBody, limitOrderTokens } from '../factories/limit-orders';
import { referencePrice } from '../factories/reference-prices';
import { ApiClient } from '../helpers/api-client';
import { startApiOn } from '../helpers/api-harness';
import { describeEachStore } from '../helpers/store-targets';

/*
 * The factories' bodies are what the api accepts: each is posted as made (and with overrides) to a real api and
 * must come back 200 with its fields, so a factory that drifts from the request schema or the handler's rules
 * fails here rather than in the suites and benchmarks that build on it.
 */

describeEachStore('test factories', (kind) => {
  let running: Awaited<ReturnType<typeof startApiOn>>;
  let client: ApiClient;

  beforeAll(async () => {
    running = await startApiOn(kind);
    await running.store.referencePrices.upsert([referencePrice()]);
    client = new ApiClient(running.baseUrl, await createAccount(running.baseUrl));
  });
  afterAll(async () => running?.close());

  describe('accounts', () => {
    it('makes a fresh name and password each time, within the spec minimums', () => {
      const [a, b] = [accountBody(), accountBody()];
      expect(a.name).not.toBe(b.name);
      expect(a.password).not.toBe(b.password);
      for (const body of [a, b]) {
        expect(body.name.length).toBeGreaterThanOrEqual(6);
        expect(body.password.length).toBeGreaterThanOrEqual(8);
      }
      expect(accountBody({ name: 'named-account' }).name).toBe('named-account');
    });

    it('creates an account whose credentials sign requests', async () => {
      const credentials = await createAccount(running.baseUrl, { password: 'a-chosen-password' });
      expect(credentials.passphrase).toBe('a-chosen-password');
      const res = await new ApiClient(running.baseUrl, credentials).get<unknown[]>('/limit-order');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
    });

    it('throws with the answer when the api refuses the account', async () => {
      await expect(createAccount(running.baseUrl, { name: 'short' })).rejects.toThrow(
        /account creation failed: 400 .*name/,
      );
    });
  });

  describe('limit orders', () => {
    it('makes a body the api creates as is', async () => {
      const body = limitOrderBody();
      const res = await client.post<Record<string, unknown>>('/limit-order', body);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        accountTo: FACTORY_MAKER,
        chainId: CHAIN_1.chainId,
        inTokenAddress: CHAIN_1.WETH.address,
        outTokenAddress: CHAIN_1.USDC.address,
        amount: Number(body.amount),
        priceTrigger: Number(body.priceTrigger),
        expired: body.expired,
        status: 'pending',
      });
      expect(Number(body.expired)).toBeGreaterThan(Date.now());
    });

    it('takes overrides, the token fields of another pair among them', async () => {
      const body = limitOrderBody({ ...limitOrderTokens(CHAIN_1.USDC, CHAIN_1.WETH), amount: '100' });
      expect(body).toMatchObject({
        inTokenAddress: CHAIN_1.USDC.address,
        tokenASymbol: 'USDC',
        amount: '100',
      });
      const res = await client.post<Record<string, unknown>>('/limit-order', body);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ inTokenAddress: CHAIN_1.USDC.address, amount: 100 });
    });

    it('passes overrides of another type through, for validation tests', async () => {
      const res = await client.post('/limit-order', limitOrderBody({ amount: 5 }));
      expect(res.status).toBe(400);
      expect(res.body.error?.details).toEqual([{ field: 'amount', message: 'Must be a string' }]);
    });
  });

  describe('DCA strategies', () => {
    it('makes a body the api creates as is', async () => {
      const body = dcaStrategyBody();
      const res = await client.post<Record<string, unknown>>('/dca-order/strategies', body);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        accountTo: FACTORY_MAKER,
        chainIdFrom: CHAIN_137.chainId,
        tokenAddressFrom: CHAIN_137.USDC.address,
        tokenAddressTo: CHAIN_137.WETH.address,
        totalAmount: body.totalAmount,
        iterations: body.iterations,
        status: 'active',
      });
    });

    it('takes overrides, the token fields of another pair among them', async () => {
      const body = dcaStrategyBody({ ...dcaStrategyTokens(CHAIN_137.WETH, CHAIN_137.USDC), totalAmount: 2 });
      expect(body.pair).toBe('WETH/USDC');
      const res = await client.post<Record<string, unknown>>('/dca-order/strategies', body);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ tokenAddressFrom: CHAIN_137.WETH.address, totalAmount: 2 });
    });
  });
});
