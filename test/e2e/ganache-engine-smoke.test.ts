import { Contract, parseUnits, Wallet } from 'ethers';
import {
  createOrders,
  expectExecutedExactlyOnce,
  orderBodies,
  prepareMakers,
  waitForAllCompleted,
  publishWethUsdcPrice,
} from '../helpers/keeper-orders';
import { balanceOf, token } from '../helpers/maker';
import { startService, type RunningService } from '../helpers/service-harness';
import { mined } from '../../devnet/wait-for-receipt';

/**
 * DEVNET_ENGINE=ganache stays a working engine (in this process, no binary): its world, one swap built by the
 * api and sent by a user, and one keeper batch of limit orders, all on a ganache chain.
 */
const NATIVE = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';

/**
 * ganache runs in this jest worker's own event loop: alone each test takes 10-15 s, beside a heavy file in the other
 * worker on two cores it took over a minute (CI, 2026-11-28).
 */
const GANACHE_TEST_MS = 180_000;

let running: RunningService;

beforeAll(async () => {
  running = await startService({ keepers: 0, devnetEnv: { DEVNET_ENGINE: 'ganache' } });
}, 120_000);

afterAll(async () => {
  await running?.close();
});

describe('the ganache engine', () => {
  it(
    'runs the world the service quotes and swaps on',
    async () => {
      expect(running.chain.engine).toBe('ganache');
      const { manifest, provider, client } = running;
      const usdc = token(manifest, 'USDC');
      const user = new Wallet(manifest.accounts[3]!.privateKey, provider);
      const params = {
        chainId: manifest.chainId,
        inTokenAddress: NATIVE,
        outTokenAddress: usdc.address,
        amount: '1',
        gasPrice: '30',
        slippage: '1',
      };
      let quote: { aggregatorId: string; outAmount: string } | undefined;
      for (let i = 0; i < 100 && !quote; i += 1) {
        const res = await client.post<{ quote: { aggregatorId: string; outAmount: string } }>('/quotes', {
          mode: 'single-chain',
          params,
        });
        if (res.status === 200) quote = res.body.data!.quote;
        else await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(quote).toBeDefined();
      const res = await client.post<{
        swap: { to: string; data: string; value: string; minOutAmount: string };
      }>('/swap', {
        mode: 'single-chain',
        params: { ...params, account: user.address, aggregatorId: quote!.aggregatorId },
      });
      expect(res.status).toBe(200);
      const swap = res.body.data!.swap;
      expect(BigInt(swap.value)).toBe(parseUnits('1', 18));
      const before = await balanceOf(provider, usdc.address, user.address);
      const tx = await user.sendTransaction({ to: swap.to, data: swap.data, value: BigInt(swap.value) });
      expect((await mined(tx))?.status).toBe(1);
      const received = (await balanceOf(provider, usdc.address, user.address)) - before;
      expect(received).toBeGreaterThanOrEqual(BigInt(swap.minOutAmount));
      // Near the world's 3,000 USDC per ETH, less fees and price impact.
      expect(received).toBeGreaterThan(parseUnits('2900', usdc.decimals));
      expect(
        await new Contract(
          manifest.contracts.weth,
          ['function symbol() view returns (string)'],
          provider,
        ).getFunction('symbol')(),
      ).toBe('WETH');
    },
    GANACHE_TEST_MS,
  );

  it(
    'executes crossed limit orders in one keeper batch',
    async () => {
      const makers = await prepareMakers(running);
      // The keeper publishes reference prices once it runs; the orders are all in the store before it starts.
      await publishWethUsdcPrice(running);
      const orders = await createOrders(running.client, orderBodies(running, makers, 4));
      const ids = orders.map((o) => o.id);
      await running.startKeeper();
      const final = await waitForAllCompleted(running.client, ids, 60_000);
      await expectExecutedExactlyOnce(running, final, ids);
      expect(new Set(ids.map((i) => final.get(i)!.txHash)).size).toBe(1);
    },
    GANACHE_TEST_MS,
  );
});
