import { Contract, id, type Wallet } from 'ethers';
import type { ManifestChain, ManifestToken } from '../../devnet/manifest';
import type { ApiClient } from '../helpers/api-client';
import {
  approveExecutor,
  balanceOf,
  baseUnits,
  createLimitOrder,
  executionEvents,
  feeCap,
  makerWallets,
  maxFeeBps,
  onchainIdOf,
  signedLimitOrderBody,
  token,
  waitForLimitOrder,
  waitUntilPairAccepted,
} from '../helpers/maker';
import { startService, type RunningService } from '../helpers/service-harness';

/**
 * Limit orders the keeper routes through sources other than Uniswap: a stable pair through the StableSwap pool,
 * a Balancer-only token through the Balancer Vault. Created through the public API, executed by the keeper, proven
 * on-chain by the venue's own swap event inside the execution's transaction and by the maker's balances.
 */

jest.setTimeout(180_000);

const TOKEN_EXCHANGE_TOPIC = id('TokenExchange(address,uint256,uint256,uint256,uint256)');
const BALANCER_SWAP_TOPIC = id('Swap(bytes32,address,address,uint256,uint256)');
const STABLE_FACTORY_ABI = ['function getPool(address, address) view returns (address)'];

let service: RunningService;
let chain: ManifestChain;
let client: ApiClient;
let makers: Wallet[];
let capBps: bigint;

beforeAll(async () => {
  service = await startService();
  chain = service.manifest;
  client = service.client;
  makers = makerWallets(chain, service.provider);
  capBps = await maxFeeBps(service.provider, chain);
}, 150_000);

afterAll(async () => {
  await service?.close();
});

/** Creates an order selling `amount` of tokenIn at a trigger the market already meets, and waits for it. */
async function executeCrossingOrder(
  maker: Wallet,
  tokenIn: ManifestToken,
  tokenOut: ManifestToken,
  amount: string,
  priceTrigger: string,
) {
  await waitUntilPairAccepted(client, chain, maker, tokenIn, tokenOut);
  const amountIn = baseUnits(amount, tokenIn);
  await approveExecutor(maker, chain, tokenIn.address, amountIn + feeCap(amountIn, capBps));
  const before = {
    in: await balanceOf(service.provider, tokenIn.address, maker.address),
    out: await balanceOf(service.provider, tokenOut.address, maker.address),
  };
  const created = await createLimitOrder(
    client,
    await signedLimitOrderBody(client, chain, { maker, tokenIn, tokenOut, amount, priceTrigger }),
  );
  const done = await waitForLimitOrder(client, created.id, ['completed', 'failed'], 60_000);
  expect(done.status).toBe('completed');
  const { receipt, executed } = await executionEvents(service.provider, chain, done.txHash);
  expect(receipt.status).toBe(1);
  const onchainId = onchainIdOf({
    id: created.id,
    apiKey: client.credentials.apiKey,
    maker: maker.address,
    tokenIn: tokenIn.address,
    tokenOut: tokenOut.address,
    amountIn,
  });
  const event = executed.find((e) => e.onchainId === onchainId)!;
  expect(event).toMatchObject({ maker: maker.address, amountIn });
  const after = {
    in: await balanceOf(service.provider, tokenIn.address, maker.address),
    out: await balanceOf(service.provider, tokenOut.address, maker.address),
  };
  expect(before.in - after.in).toBe(amountIn + event.fee);
  expect(after.out - before.out).toBe(event.amountOut);
  return { receipt, event };
}

describe('keeper orders routed through non-Uniswap sources', () => {
  it('sells USDC for USDT through the StableSwap pool', async () => {
    const usdc = token(chain, 'USDC');
    const usdt = token(chain, 'USDT');
    const { receipt, event } = await executeCrossingOrder(makers[0]!, usdc, usdt, '50000', '0.99');
    const factory = new Contract(chain.contracts.stableSwapFactory!, STABLE_FACTORY_ABI, service.provider);
    const pool = String(await factory.getFunction('getPool')(usdc.address, usdt.address)).toLowerCase();
    const exchanges = receipt.logs.filter(
      (l) => l.address.toLowerCase() === pool && l.topics[0] === TOKEN_EXCHANGE_TOPIC,
    );
    expect(exchanges.length).toBeGreaterThanOrEqual(1);
    // 50,000 USDC through a 0.04% pool: far better than any constant-product pool of the devnet pays.
    expect(event.amountOut).toBeGreaterThanOrEqual(baseUnits('49900', usdt));
  });

  it('sells BAL for WETH through the Balancer Vault', async () => {
    const bal = token(chain, 'BAL');
    const weth = token(chain, 'WETH');
    const { receipt, event } = await executeCrossingOrder(makers[1]!, bal, weth, '100', '0.001');
    const swaps = receipt.logs.filter(
      (l) =>
        l.address.toLowerCase() === chain.contracts.balancerVault!.toLowerCase() &&
        l.topics[0] === BALANCER_SWAP_TOPIC,
    );
    expect(swaps.length).toBeGreaterThanOrEqual(1);
    expect(event.amountOut).toBeGreaterThan(0n);
  });
});
