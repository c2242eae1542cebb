import { Contract, JsonRpcProvider, parseEther, parseUnits, Wallet } from 'ethers';
import { Maker, TasClient, waitForOrder, waitForStrategy, type Token } from '../../../sdk/src';
import type { EmbeddedService } from '../../helpers/embedded-service';

const BALANCE_OF = ['function balanceOf(address owner) view returns (uint256)'];

/**
 * From nothing to an executed limit order with the SDK alone, against `npm start`: an account from POST /accounts,
 * the tokens from GET /tokens, the approval and the pair signature from GET /order-authorization (Maker), the order
 * polled to completion. Only the maker's wallet (manifest chain 1, account 0) and its RPC URL come from elsewhere,
 * as an integrator's own wallet would.
 */
export function sdkJourney(service: () => EmbeddedService): void {
  describe('the SDK alone', () => {
    let provider: JsonRpcProvider;
    let client: TasClient;
    let maker: Maker;
    let wallet: Wallet;
    let tokens: Token[];

    const tokenOf = (symbol: string): Token => {
      const found = tokens.find((t) => t.symbol === symbol);
      if (!found) throw new Error(`GET /tokens lists no ${symbol}`);
      return found;
    };
    const balanceOf = (token: Token): Promise<bigint> =>
      new Contract(token.address, BALANCE_OF, provider).getFunction('balanceOf')(
        wallet.address,
      ) as Promise<bigint>;

    beforeAll(async () => {
      const { baseUrl, chain } = service();
      const credentials = await TasClient.createAccount(baseUrl, {
        name: 'sdk-journey',
        password: 'sdk-journey-password',
      });
      client = new TasClient({ baseUrl, credentials });
      provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true, cacheTimeout: -1 });
      wallet = new Wallet(chain.accounts[0]!.privateKey, provider);
      maker = new Maker(client, wallet);
    });
    afterAll(() => provider?.destroy());

    it('creates a limit order that the service executes on-chain', async () => {
      expect(await client.chains()).toContain(1);
      tokens = await client.tokens(1);
      const [weth, usdc] = [tokenOf('WETH'), tokenOf('USDC')];
      const [wethBefore, usdcBefore] = await Promise.all([balanceOf(weth), balanceOf(usdc)]);
      const before = await maker.authorization(1, 'WETH', 'USDC');
      expect(before).toMatchObject({ accountTo: wallet.address, required: '0', openLimitOrders: 0 });

      const order = await maker.createLimitOrder({
        chainId: 1,
        sell: 'WETH',
        buy: 'USDC',
        amount: '0.5',
        priceTrigger: '1000',
      });
      expect(order).toMatchObject({
        accountTo: wallet.address,
        chainId: 1,
        inTokenAddress: weth.address,
        outTokenAddress: usdc.address,
        amount: 0.5,
        priceTrigger: 1000,
        status: 'pending',
      });

      const statuses: string[] = [];
      const done = await waitForOrder(client, order.id, {
        timeoutMs: 120_000,
        intervalMs: 250,
        onUpdate: (o) => statuses.push(o.status),
      });
      if (done.status !== 'completed') console.warn(service().output().slice(-4000));
      expect(done).toMatchObject({ id: order.id, status: 'completed', reasonFail: [] });
      for (const status of statuses)
        expect(['pending', 'executing', 'submitted', 'completed']).toContain(status);

      const receipt = await provider.getTransactionReceipt(done.txHash);
      expect(receipt?.status).toBe(1);
      const [wethAfter, usdcAfter] = await Promise.all([balanceOf(weth), balanceOf(usdc)]);
      // At least 0.5 × the 1000 trigger less 1 % slippage; 0.5 WETH plus the execution fee sold.
      expect(usdcAfter - usdcBefore).toBeGreaterThanOrEqual(parseUnits('495', 6));
      expect(wethBefore - wethAfter).toBeGreaterThanOrEqual(parseEther('0.5'));
      expect(wethBefore - wethAfter).toBeLessThanOrEqual(
        parseEther('0.5') + (parseEther('0.5') * BigInt(before.maxFeeBps)) / 10_000n,
      );

      const after = await maker.authorization(1, 'WETH', 'USDC');
      expect(after).toMatchObject({ validSignatureHeld: true, required: '0', openLimitOrders: 0 });
    });

    it('runs a DCA strategy to its end', async () => {
      const usdc = tokenOf('USDC');
      const usdcBefore = await balanceOf(usdc);
      const strategy = await maker.createDcaStrategy({
        chainId: 1,
        sell: 'WETH',
        buy: 'USDC',
        totalAmount: 0.2,
        iterations: 2,
        frequency: 1,
      });
      expect(strategy).toMatchObject({
        accountTo: wallet.address,
        totalAmount: 0.2,
        iterations: 2,
        status: 'active',
      });
      const finished = await waitForStrategy(client, strategy.id, { timeoutMs: 120_000, intervalMs: 500 });
      expect(finished.status).toBe('finished');
      const orders = await client.listDcaOrders(strategy.id);
      expect(orders.map((o) => [o.amount, o.status])).toEqual([
        [0.1, 'successful'],
        [0.1, 'successful'],
      ]);
      for (const o of orders) {
        expect((await provider.getTransactionReceipt(o.transactionHash!))?.status).toBe(1);
      }
      const received = orders.reduce((sum, o) => sum + (o.amountReceived ?? 0), 0);
      expect(received).toBeGreaterThan(0);
      expect((await balanceOf(usdc)) - usdcBefore).toBeGreaterThan(0n);
      expect(await maker.authorization(1, 'WETH', 'USDC')).toMatchObject({
        activeStrategies: 0,
        required: '0',
      });
    });
  });
}
